// smoke.js — a few streamed requests from one VU: does the endpoint stream, and
// do the llm_* metrics come out? Run it before any load test.
//
//   xk6-llmstream run scripts/smoke.js                      # against the built-in mock
//   LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=sk-... LLM_MODEL=gpt-4o-mini \
//     xk6-llmstream run scripts/smoke.js                    # against a real endpoint
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL, with or without /v1 (set to the mock by `xk6-llmstream run`
//                    when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-completions | anthropic-messages
//   LLM_MAX_TOKENS   max_tokens per request (default: 64)
//   LLM_PROMPT       the user message (default: a short question)
//   LLM_ITERATIONS   number of requests (default: 5)
//
// The module is imported by relative path; a copy of this script elsewhere must point
// the import at llmstream.js (a path, file:// or https:// URL).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

const maxTokens = Number(__ENV.LLM_MAX_TOKENS || 64);
const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  // fields of every request body; chat(prompt) makes the dialect's own body
  // from the prompt (messages, or prompt for openai-completions)
  body: { max_tokens: maxTokens },
  keepText: true,
});

const prompt = __ENV.LLM_PROMPT || 'Explain time to first token in one sentence.';

export const options = {
  scenarios: {
    smoke: { executor: 'per-vu-iterations', vus: 1, iterations: Number(__ENV.LLM_ITERATIONS || 5), maxDuration: '5m' },
  },
  thresholds: {
    // Any failed request fails the smoke test (exit code 99).
    llm_requests_failed: ['rate==0'],
    checks: ['rate==1'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
};

export default function () {
  const r = llm.chat(prompt);
  check(r, {
    'streamed without error': (x) => x.ok,
    'first token arrived': (x) => x.ttft !== null,
    'tokens counted': (x) => x.outputTokens > 0,
  });
  if (!r.ok) {
    console.warn(`request failed: ${r.errorKind}: ${r.error ? r.error.message : ''}`);
  } else if (__ITER === 0) {
    console.log(`${r.model} via ${r.api}: ttft ${r.ttft} ms, tpot ${r.tpot} ms, ${r.outputTokens} tokens (${r.tokenSource}), text: ${(r.text || '').slice(0, 80)}`);
  }
}
