// concurrency-sweep.js — the same request at 1, then 4, then 8 concurrent streams, one
// scenario per level, each tagged `concurrency`, so the levels can be compared side by
// side:
//
//   xk6-llmstream run scripts/concurrency-sweep.js --out json=sweep.json
//   analyze summary sweep.json --by concurrency                # a table per level
//   analyze plot sweep.json --by concurrency -o sweep.png      # one ECDF per level
//
// The levels run one after another: each starts after the previous one's duration
// plus its gracefulStop, so no two levels ever overlap. About 75 s with the defaults.
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL, with or without /v1 (set to the mock by `xk6-llmstream run`
//                    when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-completions | anthropic-messages
//   LLM_MAX_TOKENS   max_tokens per request (default: 64)
//   LLM_PROMPT       the user message (default: a short question)
//   LLM_LEVELS       comma-separated concurrency levels (default: 1,4,8)
//   LLM_STEP         seconds at each level (default: 20)
//   LLM_GRACE        seconds a level's last streams may take to finish (default: 5)
//   LLM_TIME_SCALE   multiplies every duration (default: 1)
//
// The module is imported by relative path; a copy of this script elsewhere must point
// the import at llmstream.js (a path, file:// or https:// URL).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const ms = (/** @type {number} */ s) => Math.max(100, Math.round(s * 1000 * scale));
const levels = (__ENV.LLM_LEVELS || '1,4,8').split(',').map((x) => Number(x.trim()));
for (const n of levels) {
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`LLM_LEVELS: ${JSON.stringify(__ENV.LLM_LEVELS)} must be whole numbers ≥ 1, e.g. 1,4,8`);
  }
}
const step = ms(Number(__ENV.LLM_STEP || 20));
const grace = ms(Number(__ENV.LLM_GRACE || 5));

const maxTokens = Number(__ENV.LLM_MAX_TOKENS || 64);
const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  // fields of every request body; chat(prompt) makes the dialect's own body
  // from the prompt (messages, or prompt for openai-completions)
  body: { max_tokens: maxTokens },
  warmup: 1,
});

const prompt = __ENV.LLM_PROMPT || 'Describe a queue in two sentences.';

/** @type {{ [name: string]: import('k6/options').Scenario }} */
const scenarios = {};
levels.forEach((n, i) => {
  scenarios[`c${n}`] = {
    executor: 'constant-vus',
    vus: n,
    duration: `${step}ms`,
    startTime: `${i * (step + grace)}ms`,
    gracefulStop: `${grace}ms`,
    tags: { concurrency: String(n) },
  };
});

/** @type {{ [metric: string]: string[] }} */
const thresholds = { llm_requests_failed: ['rate<0.05'] };
for (const n of levels) {
  // One line per level in the end-of-test summary.
  thresholds[`llm_ttft{concurrency:${n}}`] = ['max>=0'];
  thresholds[`llm_tpot{concurrency:${n}}`] = ['max>=0'];
}

export const options = {
  scenarios: scenarios,
  thresholds: thresholds,
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
};

export default function () {
  const r = llm.chat(prompt);
  check(r, { 'streamed without error': (x) => x.ok });
}
