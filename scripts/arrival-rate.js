// arrival-rate.js — the open model: requests arrive at a set rate whatever the server's
// latency (as users do), first constant, then ramping. When the server cannot keep up,
// k6 reports dropped_iterations instead of silently slowing down. About 50 s with the
// defaults.
//
//   xk6-llmstream run scripts/arrival-rate.js
//   LLM_BASE_URL=http://127.0.0.1:8000 LLM_MODEL=my-model LLM_RATE=5 \
//     xk6-llmstream run scripts/arrival-rate.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL, with or without /v1 (set to the mock by `xk6-llmstream run`
//                    when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-completions | anthropic-messages
//   LLM_MAX_TOKENS   max_tokens per request (default: 64)
//   LLM_PROMPT       the user message (default: a short question)
//   LLM_RATE         requests per second of the constant phase (default: 2); the ramping
//                    phase goes from it to 4× it
//   LLM_MAX_VUS      most VUs k6 may use to keep the rate (default: 100): about rate × e2e
//   LLM_TIME_SCALE   multiplies every duration below (default: 1)
//
// The module is imported by relative path; a copy of this script elsewhere must point
// the import at llmstream.js (a path, file:// or https:// URL).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const dur = (/** @type {number} */ s) => `${Math.max(100, Math.round(s * 1000 * scale))}ms`;
const rate = Number(__ENV.LLM_RATE || 2);
const maxVUs = Number(__ENV.LLM_MAX_VUS || 100);

const maxTokens = Number(__ENV.LLM_MAX_TOKENS || 64);
const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  // fields of every request body; chat(prompt) makes the dialect's own body
  // from the prompt (messages, or prompt for openai-completions)
  body: { max_tokens: maxTokens },
});

const prompt = __ENV.LLM_PROMPT || 'Name three uses of a load test.';

export const options = {
  scenarios: {
    constant: {
      executor: 'constant-arrival-rate',
      rate: rate,
      timeUnit: '1s',
      duration: dur(20),
      preAllocatedVUs: Math.min(maxVUs, Math.max(2, rate * 3)),
      maxVUs: maxVUs,
      gracefulStop: dur(5),
    },
    ramping: {
      executor: 'ramping-arrival-rate',
      startTime: dur(25),
      startRate: rate,
      timeUnit: '1s',
      stages: [
        { duration: dur(15), target: rate * 4 },
        { duration: dur(5), target: rate * 4 },
      ],
      preAllocatedVUs: Math.min(maxVUs, Math.max(2, rate * 6)),
      maxVUs: maxVUs,
      gracefulStop: dur(5),
    },
  },
  thresholds: {
    llm_requests_failed: ['rate<0.05'],
    // One line per phase in the end-of-test summary.
    'llm_ttft{scenario:constant}': ['max>=0'],
    'llm_ttft{scenario:ramping}': ['max>=0'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
};

export default function () {
  const r = llm.chat(prompt);
  check(r, { 'streamed without error': (x) => x.ok });
}
