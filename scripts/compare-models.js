// compare-models.js — several models in one run, under the same load at the same time,
// each sample tagged with its `model`, so their distributions can be compared:
//
//   xk6-llmstream run --mock-profile scripts/mock-profiles/compare-models.json \
//     scripts/compare-models.js --out json=models.json            # model-b is the slow one
//   analyze summary models.json --by model                     # a table per model
//   analyze plot models.json --by model -o models.png          # one ECDF per model
//
// Each model gets its own scenario (the same executor and VUs), all running at once.
// Against the mock, models differ only when its profile gives them their own settings
// (as scripts/mock-profiles/compare-models.json does; see docs/mock-flags.md); without one
// every model behaves the same. About 30 s with the defaults.
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL, with or without /v1 (set to the mock by `xk6-llmstream run`
//                    when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODELS       comma-separated model names (default: model-a,model-b)
//   LLM_API          openai-chat (default) | openai-completions | anthropic-messages
//   LLM_MAX_TOKENS   max_tokens per request (default: 64)
//   LLM_PROMPT       the user message (default: a short question)
//   LLM_VUS          VUs per model (default: 2)
//   LLM_DURATION     seconds (default: 30)
//   LLM_TIME_SCALE   multiplies the duration (default: 1)
//
// To compare different endpoints, give each Client its own baseURL and apiKey.
// The module is imported by relative path; a copy of this script elsewhere must point
// the import at llmstream.js (a path, file:// or https:// URL).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const ms = (/** @type {number} */ s) => Math.max(100, Math.round(s * 1000 * scale));
const models = (__ENV.LLM_MODELS || 'model-a,model-b').split(',').map((m) => m.trim()).filter((m) => m !== '');
if (models.length === 0) {
  throw new Error('LLM_MODELS is empty: give comma-separated model names');
}
const api = /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'); // checked by the Client

const maxTokens = Number(__ENV.LLM_MAX_TOKENS || 64);
// One Client per model, all created in the init context.
const clients = models.map((m) => new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: m,
  api: api,
  // fields of every request body; chat(prompt) makes the dialect's own body
  // from the prompt (messages, or prompt for openai-completions)
  body: { max_tokens: maxTokens },
  warmup: 1,
}));

const prompt = __ENV.LLM_PROMPT || 'Summarise the plot of Hamlet in two sentences.';

/** @type {{ [name: string]: import('k6/options').Scenario }} */
const scenarios = {};
/** @type {{ [metric: string]: string[] }} */
const thresholds = { llm_requests_failed: ['rate<0.05'] };
models.forEach((m, i) => {
  scenarios[`model_${i}`] = {
    executor: 'constant-vus',
    vus: Number(__ENV.LLM_VUS || 2),
    duration: `${ms(Number(__ENV.LLM_DURATION || 30))}ms`,
    gracefulStop: `${ms(10)}ms`,
    env: { LLM_MODEL_INDEX: String(i) },
  };
  // One line per model in the end-of-test summary.
  thresholds[`llm_ttft{model:${m}}`] = ['max>=0'];
  thresholds[`llm_tpot{model:${m}}`] = ['max>=0'];
});

export const options = {
  scenarios: scenarios,
  thresholds: thresholds,
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
};

export default function () {
  const llm = clients[Number(__ENV.LLM_MODEL_INDEX || 0)];
  const r = llm.chat(prompt);
  check(r, { 'streamed without error': (x) => x.ok });
}
