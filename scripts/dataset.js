// dataset.js — replay a JSONL request file made by `xk6-llmstream dataset`: each VU takes
// the next entry in turn (VU k takes entries k−1, k−1+V, …, so VUs never replay the same
// request at once), sends its messages and max_tokens, and asks the server for exactly
// the entry's output length (fixedOutputTokens); requests whose output length differed
// are counted in llm_output_length_mismatch. Each request's llm_* samples carry the
// entry id as metadata (llm_entry_id) and the entry's tags. About 30 s with the defaults.
//
//   xk6-llmstream run scripts/dataset.js
//   xk6-llmstream dataset --input ShareGPT_V3_unfiltered_cleaned_split.json --requests 5000 -o sharegpt.jsonl
//   LLM_DATASET=$PWD/sharegpt.jsonl LLM_BASE_URL=http://127.0.0.1:8000 xk6-llmstream run scripts/dataset.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL (set to the mock by `xk6-llmstream run` when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-completions | anthropic-messages
//   LLM_DATASET      the JSONL file (default: data/synthetic.jsonl, next to this script; a
//                    relative path is resolved from this script's folder)
//   LLM_VUS          VUs (default: 4)
//   LLM_SEED         where each VU starts in the file (default: 1)
//   LLM_VLLM_EXTRAS  0 to leave out ignore_eos/min_tokens for servers that refuse them
//   LLM_TIME_SCALE   multiplies the duration (default: 1)
//   LLM_ITERATIONS   with real k6: iterations instead of a duration (tests)
//
// data/synthetic.jsonl was made with:
//   xk6-llmstream dataset --requests 60 --input-tokens uniform:min=16,max=400 \
//     --output-tokens lognormal:mean=24,sd=8,max=64 --seed 1 -o scripts/data/synthetic.jsonl

import { check } from 'k6';
import { Client, Dataset, dataURL } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const vus = Number(__ENV.LLM_VUS || 4);

const data = new Dataset(dataURL(__ENV.LLM_DATASET || './data/synthetic.jsonl', import.meta), { seed: Number(__ENV.LLM_SEED || 1) });

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  fixedOutputTokens: true,
  vllmExtras: __ENV.LLM_VLLM_EXTRAS !== '0',
});

const run = __ENV.LLM_ITERATIONS
  ? { executor: 'per-vu-iterations', vus: vus, iterations: Number(__ENV.LLM_ITERATIONS) }
  : { executor: 'constant-vus', vus: vus, duration: `${Math.max(1, Math.round(30 * scale))}s` };

export const options = {
  scenarios: { dataset: run },
  thresholds: { llm_requests_failed: ['rate<0.01'] },
};

export default function () {
  const r = llm.chat(data.next());
  check(r, {
    'streamed': (x) => x.ok,
    'output length as asked': (x) => !x.outputLengthMismatch,
  });
}
