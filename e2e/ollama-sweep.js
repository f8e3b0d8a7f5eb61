// ollama-sweep.js — the concurrency sweep of scripts/e2e-ollama.sh: one stream, then
// LLM_CONCURRENCY streams at once, against a real engine (ollama serving the tiny model),
// one scenario per level tagged `concurrency`:
//
//   LLM_BASE_URL=http://127.0.0.1:PORT xk6-llmstream run e2e/ollama-sweep.js --out json=sweep.json
//   analyze summary sweep.json --by concurrency
//   analyze plot sweep.json --by concurrency --log -o ecdf.png
//
// Why not scripts/concurrency-sweep.js: there every level runs for a fixed time and may
// cut its last streams short at gracefulStop, and the next level starts at a fixed time.
// Behind a queue (16 streams, 4 slots on 2 shared cores) one wave of streams can take
// tens of seconds, so here the last level runs a fixed number of requests per stream
// with a long gracefulStop: every request it starts ends, and the count of requests is
// known (LLM_CONCURRENCY × LLM_ROUNDS). The single-stream level runs for a time, like
// the sweep script, because its streams are short.
//
//   c1   constant-vus, 1 VU, LLM_SINGLE_SECONDS, then up to LLM_SINGLE_GRACE s to finish
//   cN   per-vu-iterations, N = LLM_CONCURRENCY VUs × LLM_ROUNDS requests each,
//        starting when c1's grace has passed (the levels never overlap)
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL        ollama's base URL, e.g. http://127.0.0.1:11434 (required)
//   LLM_MODEL           model name (default: tiny-random)
//   LLM_MAX_TOKENS      max_tokens per request (default: 32)
//   LLM_PROMPT          the user message (default: the prompt of the curl checks)
//   LLM_CONCURRENCY     streams at once in the second level, ≥ 2 (default: 16)
//   LLM_ROUNDS          requests per stream in the second level (default: 4)
//   LLM_SINGLE_SECONDS  seconds of the single-stream level (default: 8)
//   LLM_SINGLE_GRACE    seconds the last single stream may take to finish (default: 5)
//   LLM_TIMEOUT         timeout of one stream (default: 120s)
//
// Thresholds: no request may fail and every check must pass (exit 99 otherwise).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

function wholeNumber(name, def, min) {
  const raw = __ENV[name];
  const n = raw === undefined || raw === '' ? def : Number(raw);
  if (!Number.isInteger(n) || n < min) {
    throw new Error(`${name}: ${JSON.stringify(raw)} must be a whole number ≥ ${min}`);
  }
  return n;
}

function positive(name, def) {
  const raw = __ENV[name];
  const n = raw === undefined || raw === '' ? def : Number(raw);
  if (!(n > 0)) {
    throw new Error(`${name}: ${JSON.stringify(raw)} must be a positive number of seconds`);
  }
  return n;
}

if (!__ENV.LLM_BASE_URL) {
  throw new Error('LLM_BASE_URL is not set: point it at ollama, e.g. http://127.0.0.1:11434 (scripts/e2e-ollama.sh does)');
}

const maxTokens = wholeNumber('LLM_MAX_TOKENS', 32, 1);
const concurrency = wholeNumber('LLM_CONCURRENCY', 16, 2);
const rounds = wholeNumber('LLM_ROUNDS', 4, 1);
const singleMS = Math.round(positive('LLM_SINGLE_SECONDS', 8) * 1000);
const graceMS = Math.round(positive('LLM_SINGLE_GRACE', 5) * 1000);
const prompt = __ENV.LLM_PROMPT || 'Tell me a story about a lighthouse.';

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  model: __ENV.LLM_MODEL || 'tiny-random',
  api: 'openai-chat',
  body: { max_tokens: maxTokens }, // in every request; chat(prompt) adds the user message
  timeout: __ENV.LLM_TIMEOUT || '120s',
});

const thresholds = {
  llm_requests_failed: ['rate==0'],
  checks: ['rate==1'],
};
for (const n of [1, concurrency]) {
  // One line per level in k6's end-of-test summary.
  thresholds[`llm_ttft{concurrency:${n}}`] = ['max>=0'];
  thresholds[`llm_itl{concurrency:${n}}`] = ['max>=0'];
}

export const options = {
  scenarios: {
    c1: {
      executor: 'constant-vus',
      vus: 1,
      duration: `${singleMS}ms`,
      gracefulStop: `${graceMS}ms`,
      tags: { concurrency: '1' },
    },
    [`c${concurrency}`]: {
      executor: 'per-vu-iterations',
      vus: concurrency,
      iterations: rounds,
      startTime: `${singleMS + graceMS}ms`,
      maxDuration: '10m',
      gracefulStop: '60s',
      tags: { concurrency: String(concurrency) },
    },
  },
  thresholds: thresholds,
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(99)', 'max', 'count'],
};

export default function () {
  const r = llm.chat(prompt);
  check(r, {
    'streamed without error': (x) => x.ok,
    'output tokens from usage equal max_tokens': (x) => x.tokenSource === 'usage' && x.outputTokens === maxTokens,
    'stopped by length': (x) => x.finishReason === 'length',
  });
}
