// synthetic.js — input/output token-length distributions (ISL/OSL): replays a synthetic
// dataset whose prompts have exactly the drawn number of tokens, in a seeded random order,
// with each request's output length pinned to its drawn length (fixedOutputTokens), and
// tags every request with its input-length bucket (isl: 0-127, 128-255, …) so latency can
// be read per prompt length. About 30 s with the defaults.
//
//   xk6-llmstream dataset --requests 2000 --input-tokens lognormal:mean=800,sd=400,max=8000 \
//     --output-tokens normal:mean=200,sd=50,min=16 --seed 7 -o isl-osl.jsonl
//   LLM_DATASET=$PWD/isl-osl.jsonl xk6-llmstream run scripts/synthetic.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_API   as in smoke.js
//   LLM_DATASET      the JSONL file (default: data/synthetic.jsonl, made by the command in
//                    dataset.js's header)
//   LLM_BUCKET       isl bucket width in tokens (default: 128)
//   LLM_VUS          VUs (default: 4)
//   LLM_SEED         the sampling seed (default: 1)
//   LLM_TIME_SCALE   multiplies the duration (default: 1)
//   LLM_ITERATIONS   with real k6: iterations instead of a duration (tests)

import { check } from 'k6';
import { Client, Dataset, dataURL } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const vus = Number(__ENV.LLM_VUS || 4);
const bucket = Number(__ENV.LLM_BUCKET || 128);

const data = new Dataset(dataURL(__ENV.LLM_DATASET || './data/synthetic.jsonl', import.meta), {
  order: 'random', seed: Number(__ENV.LLM_SEED || 1),
});

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  fixedOutputTokens: true,
});

const run = __ENV.LLM_ITERATIONS
  ? { executor: 'per-vu-iterations', vus: vus, iterations: Number(__ENV.LLM_ITERATIONS) }
  : { executor: 'constant-vus', vus: vus, duration: `${Math.max(1, Math.round(30 * scale))}s` };

export const options = {
  scenarios: { synthetic: run },
  thresholds: { llm_requests_failed: ['rate<0.01'] },
};

export default function () {
  const e = data.next();
  const lo = Math.floor(e.input_tokens / bucket) * bucket;
  const r = llm.chat(e, { tags: { isl: `${lo}-${lo + bucket - 1}` } });
  check(r, { 'streamed': (x) => x.ok, 'output length as asked': (x) => !x.outputLengthMismatch });
}
