// shared-prefix.js — prefix caching: requests in G groups share a long prefix (a system
// prompt, a document) and differ after it, so a server with prefix caching serves the
// shared part from cache. Each request is tagged with its prefix_group. Against the mock
// (prefix cache on by default) the cached prompt tokens appear in usage
// (prompt_tokens_details.cached_tokens / cache_read_input_tokens) and in its --log as
// cached_tokens, and TTFT falls with them. About 30 s with the defaults.
//
//   xk6-llmstream run scripts/shared-prefix.js
//   xk6-llmstream dataset --requests 2000 --prefix-groups 16 --prefix-tokens 2000 \
//     --input-tokens 2500 --output-tokens 64 -o prefix.jsonl
//   LLM_DATASET=$PWD/prefix.jsonl LLM_BASE_URL=http://127.0.0.1:8000 xk6-llmstream run scripts/shared-prefix.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_API   as in smoke.js
//   LLM_DATASET      the JSONL file (default: data/shared-prefix.jsonl)
//   LLM_VUS          VUs (default: 4)
//   LLM_TIME_SCALE   multiplies the duration (default: 1)
//   LLM_ITERATIONS   with real k6: iterations instead of a duration (tests)
//
// data/shared-prefix.jsonl was made with:
//   xk6-llmstream dataset --requests 48 --prefix-groups 4 --prefix-tokens 256 \
//     --input-tokens 320 --output-tokens 8 --seed 1 -o scripts/data/shared-prefix.jsonl

import { check } from 'k6';
import { Client, Dataset, dataURL } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const vus = Number(__ENV.LLM_VUS || 4);

const data = new Dataset(dataURL(__ENV.LLM_DATASET || './data/shared-prefix.jsonl', import.meta));

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
  scenarios: { prefix: run },
  thresholds: { llm_requests_failed: ['rate<0.01'] },
};

export default function () {
  const e = data.next();
  const r = llm.chat(e, { tags: { prefix_group: String(e.prefix_group || 0) } });
  check(r, { 'streamed': (x) => x.ok });
}
