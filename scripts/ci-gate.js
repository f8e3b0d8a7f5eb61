// ci-gate.js — a CI gate: a short steady load, and thresholds on the tail of TTFT, on
// TPOT, on the failure rate and on one model's submetric. k6 exits with 99 when a
// threshold fails (and stops early: abortOnFail), so the CI job fails.
//
//   xk6-llmstream run scripts/ci-gate.js                            # passes against the mock
//   xk6-llmstream run scripts/ci-gate.js -e LLM_GATE_FAIL=1; echo $?  # fails on purpose: 99
//   LLM_BASE_URL=https://api.example.com/v1 LLM_API_KEY=... LLM_MODEL=my-model \
//     LLM_TTFT_P99=1500 xk6-llmstream run scripts/ci-gate.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL, with or without /v1 (set to the mock by `xk6-llmstream run`
//                    when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-completions | anthropic-messages
//   LLM_MAX_TOKENS   max_tokens per request (default: 64)
//   LLM_PROMPT       the user message (default: a short question)
//   LLM_VUS          concurrent streams (default: 4)
//   LLM_DURATION     seconds of load (default: 20)
//   LLM_TIME_SCALE   multiplies the duration (default: 1)
//   LLM_TTFT_P99     limit on p(99) of llm_ttft, ms (default: 2000)
//   LLM_TTFT_P95_MODEL  limit on p(95) of llm_ttft{model:LLM_MODEL}, ms (default: 1500)
//   LLM_TPOT_P90     limit on p(90) of llm_tpot, ms (default: 100)
//   LLM_FAILED_RATE  limit on the rate of llm_requests_failed (default: 0.01)
//   LLM_GATE_FAIL    1: make the gate fail on purpose (impossible TTFT limit), to see exit 99
//
// The module is imported by relative path; a copy of this script elsewhere must point
// the import at llmstream.js (a path, file:// or https:// URL).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const ms = (/** @type {number} */ s) => Math.max(100, Math.round(s * 1000 * scale));
const model = __ENV.LLM_MODEL || 'mock';
const failOnPurpose = __ENV.LLM_GATE_FAIL === '1' || __ENV.LLM_GATE_FAIL === 'true';

const ttftP99 = failOnPurpose ? 0.001 : Number(__ENV.LLM_TTFT_P99 || 2000);
const ttftP95Model = Number(__ENV.LLM_TTFT_P95_MODEL || 1500);
const tpotP90 = Number(__ENV.LLM_TPOT_P90 || 100);
const failedRate = Number(__ENV.LLM_FAILED_RATE || 0.01);

const maxTokens = Number(__ENV.LLM_MAX_TOKENS || 64);
const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: model,
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  // fields of every request body; chat(prompt) makes the dialect's own body
  // from the prompt (messages, or prompt for openai-completions)
  body: { max_tokens: maxTokens },
  warmup: 1,
  slo: { ttft: ttftP99, tpot: tpotP90 },
});

const prompt = __ENV.LLM_PROMPT || 'Give one tip for writing fast code.';

// Abort early once a limit is clearly broken, but not before a few requests are in.
const gate = (/** @type {string} */ expr) => ({ threshold: expr, abortOnFail: true, delayAbortEval: `${ms(5)}ms` });

export const options = {
  scenarios: {
    gate: {
      executor: 'constant-vus',
      vus: Number(__ENV.LLM_VUS || 4),
      duration: `${ms(Number(__ENV.LLM_DURATION || 20))}ms`,
      gracefulStop: `${ms(10)}ms`,
    },
  },
  thresholds: {
    llm_ttft: [gate(`p(99)<${ttftP99}`)],
    llm_tpot: [gate(`p(90)<${tpotP90}`)],
    llm_requests_failed: [gate(`rate<${failedRate}`)],
    [`llm_ttft{model:${model}}`]: [`p(95)<${ttftP95Model}`],
    // Goodput: the share of requests within both limits, reported (not gated).
    llm_slo_met: ['rate>=0'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
};

export default function () {
  const r = llm.chat(prompt);
  check(r, { 'streamed without error': (x) => x.ok });
}
