// ramping-vus.js — the main job: ramp virtual users up and down in stages and watch
// TTFT, TPOT and the inter-token latency distribution as concurrency grows. About 40 s
// with the defaults, up to 40 VUs of 64-token answers: against the built-in mock that is
// about 600 requests, enough for every gate the README shows to decide (llm_ttft p(99)
// at 95% confidence needs 368; `analyze tail` needs 200 records: run with --records).
//
//   xk6-llmstream run scripts/ramping-vus.js                         # against the built-in mock
//   xk6-llmstream run --records records.jsonl.gz scripts/ramping-vus.js --out json=results.json.gz
//                                                                    # keep every sample for analyze
//   LLM_BASE_URL=http://127.0.0.1:8000 LLM_MODEL=meta-llama/Llama-3.1-8B-Instruct \
//     xk6-llmstream run scripts/ramping-vus.js                       # against vLLM, SGLang, ...
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL, with or without /v1 (set to the mock by `xk6-llmstream run`
//                    when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-completions | anthropic-messages
//   LLM_MAX_TOKENS   max_tokens per request (default: 64)
//   LLM_PROMPT       the user message (default: a short question)
//   LLM_MAX_VUS      peak number of VUs (default: 40)
//   LLM_TIME_SCALE   multiplies every duration below (default: 1; 0.1 makes a 4 s run)
//   LLM_ITL          llm_itl samples: all (default), off, or a fraction such as 0.1 (long
//                    runs: k6 keeps every Trend sample in memory)
//
// The module is imported by relative path; a copy of this script elsewhere must point
// the import at llmstream.js (a path, file:// or https:// URL).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
// seconds → a k6 duration, scaled (never below 100 ms)
const dur = (/** @type {number} */ s) => `${Math.max(100, Math.round(s * 1000 * scale))}ms`;
const itl = __ENV.LLM_ITL === undefined || __ENV.LLM_ITL === 'all' || __ENV.LLM_ITL === 'off' ? __ENV.LLM_ITL || 'all' : Number(__ENV.LLM_ITL);
const peak = Number(__ENV.LLM_MAX_VUS || 40);

const maxTokens = Number(__ENV.LLM_MAX_TOKENS || 64);
const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  // fields of every request body; chat(prompt) makes the dialect's own body
  // from the prompt (messages, or prompt for openai-completions)
  body: { max_tokens: maxTokens },
  itl: itl,
  // Each VU's first request opens its connection: keep it out of the numbers.
  warmup: 1,
});

const prompt = __ENV.LLM_PROMPT || 'Explain in three sentences why time to first token matters for chat.';

export const options = {
  scenarios: {
    ramp: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: dur(10), target: Math.max(1, Math.ceil(peak / 2)) },
        { duration: dur(20), target: peak },
        { duration: dur(10), target: 0 },
      ],
      gracefulRampDown: dur(10),
      gracefulStop: dur(10),
    },
  },
  thresholds: {
    // Generous limits: this script explores; scripts/ci-gate.js gates.
    llm_requests_failed: ['rate<0.05'],
    llm_ttft: ['p(95)<10000'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)', 'max', 'count'],
};

export default function () {
  const r = llm.chat(prompt);
  check(r, { 'streamed without error': (x) => x.ok });
}
