// vision.js — image prompts: each request sends a user message with a generated PNG
// image (from a dataset made by `xk6-llmstream dataset --image-sizes`), in the Client's
// API's own image shape (OpenAI chat image_url, Responses input_image, Anthropic image
// source, Gemini inlineData, Cohere image_url, ollama images). Requests are tagged with
// their image size, so TTFT can be compared per size: the mock counts image tokens by
// OpenAI's tile rule (85 + 170 per 512-px tile, docs/mock-conformance.md#images), so its prefill,
// and TTFT, grow with the image. About 30 s with the defaults.
//
//   xk6-llmstream run scripts/vision.js
//   xk6-llmstream dataset --requests 200 --image-sizes 512x512,1024x1024,2048x2048 -o images.jsonl
//   LLM_DATASET=$PWD/images.jsonl LLM_BASE_URL=http://127.0.0.1:8000 LLM_MODEL=my-vl-model \
//     xk6-llmstream run scripts/vision.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL (set to the mock by `xk6-llmstream run` when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-responses | anthropic-messages | gemini |
//                    cohere | ollama
//   LLM_DATASET      the JSONL file (default: data/vision.jsonl, next to this script)
//   LLM_VUS          VUs (default: 2)
//   LLM_TIME_SCALE   multiplies the duration (default: 1)
//   LLM_ITERATIONS   with real k6: iterations instead of a duration (tests)
//
// data/vision.jsonl was made with:
//   xk6-llmstream dataset --requests 12 --input-tokens uniform:min=16,max=64 --output-tokens 24 \
//     --image-sizes 256x256,512x512,1024x1024 --seed 1 -o scripts/data/vision.jsonl

import { check } from 'k6';
import { Client, Dataset, dataURL } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const vus = Number(__ENV.LLM_VUS || 2);

const data = new Dataset(dataURL(__ENV.LLM_DATASET || './data/vision.jsonl', import.meta));

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
});

const run = __ENV.LLM_ITERATIONS
  ? { executor: 'per-vu-iterations', vus: vus, iterations: Number(__ENV.LLM_ITERATIONS) }
  : { executor: 'constant-vus', vus: vus, duration: `${Math.max(1, Math.round(30 * scale))}s` };

export const options = {
  scenarios: { vision: run },
  thresholds: { llm_requests_failed: ['rate<0.01'] },
};

export default function () {
  const entry = data.next();
  const images = (entry.messages && entry.messages[0].images) || [];
  const size = images.length > 0 ? `${images[0].width}x${images[0].height}` : 'none';
  const r = llm.chat(entry, { tags: { image_size: size } });
  check(r, { 'stream completed': (x) => x.ok });
}
