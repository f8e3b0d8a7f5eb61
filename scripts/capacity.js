// capacity.js — one load level of a capacity sweep: `xk6-llmstream sweep` runs it once
// per level with LLM_RATE (requests started per second, constant-arrival-rate: the open
// model) or LLM_VUS (concurrent VUs, constant-vus: the closed model) and LLM_DURATION set,
// and judges each level's output. It runs on its own too. About 30 s with the defaults.
//
//   xk6-llmstream sweep --search --min 1 --max 64 --slo 'llm_ttft: p(99)<2000' scripts/capacity.js
//   xk6-llmstream run scripts/capacity.js                      # one level: 2 req/s for 30 s
//   LLM_VUS=8 LLM_BASE_URL=http://127.0.0.1:8000 LLM_MODEL=my-model \
//     xk6-llmstream run scripts/capacity.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL, with or without /v1 (set to the mock by `xk6-llmstream run`
//                    and `sweep` when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-completions | anthropic-messages
//   LLM_MAX_TOKENS   max_tokens per request (default: 64)
//   LLM_PROMPT       the user message (default: a short question)
//   LLM_RATE         requests started per second, may be fractional (default: 2 when
//                    LLM_VUS is not set)
//   LLM_VUS          concurrent VUs, each sending its next request when the last ends
//                    (give LLM_RATE or LLM_VUS, not both)
//   LLM_DURATION     the level's duration (default: 30s)
//   LLM_MAX_VUS      most VUs k6 may use to keep LLM_RATE (default: 200); when they are all
//                    busy, k6 counts dropped_iterations, which the sweep reads as saturation
//   LLM_GRACEFUL_STOP how long requests in flight may finish after the duration (default: 10s)
//
// The module is imported by relative path; a copy of this script elsewhere must point
// the import at llmstream.js (a path, file:// or https:// URL).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

/** @param {string} name */
function positive(name) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') return null;
  const v = Number(raw);
  if (!(v > 0) || !isFinite(v)) throw new Error(`capacity.js: ${name}=${JSON.stringify(raw)} is not a positive number`);
  return v;
}

const vus = positive('LLM_VUS');
const rate = positive('LLM_RATE');
if (vus !== null && rate !== null) throw new Error('capacity.js: give LLM_RATE or LLM_VUS, not both');
if (vus !== null && vus !== Math.floor(vus)) throw new Error(`capacity.js: LLM_VUS=${vus} is not a whole number`);
const duration = __ENV.LLM_DURATION || '30s';
const gracefulStop = __ENV.LLM_GRACEFUL_STOP || '10s';
const maxVUs = positive('LLM_MAX_VUS') || 200;

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

// A fractional rate r is r·1000 iterations per 1000 s: k6 spaces them 1/r s apart.
/** @param {number} r */
function arrivalRate(r) {
  return {
    executor: 'constant-arrival-rate',
    rate: Math.round(r * 1000),
    timeUnit: '1000s',
    duration: duration,
    preAllocatedVUs: Math.min(maxVUs, Math.max(2, Math.ceil(r * 2))),
    maxVUs: maxVUs,
    gracefulStop: gracefulStop,
  };
}

export const options = {
  scenarios: {
    capacity: vus !== null
      ? { executor: 'constant-vus', vus: vus, duration: duration, gracefulStop: gracefulStop }
      : arrivalRate(rate === null ? 2 : rate),
  },
  thresholds: {
    // One line in the end-of-test summary; the sweep judges the SLO itself.
    llm_ttft: ['max>=0'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
};

export default function () {
  const r = llm.chat(prompt);
  check(r, { 'streamed without error': (x) => x.ok });
}
