// structured.js — structured output: every request asks for JSON that follows a JSON
// schema (response_format, sent as the Client's API's own field: OpenAI chat
// response_format, Responses text.format, Anthropic output_config.format, Gemini
// responseMimeType + responseJsonSchema, Cohere response_format, ollama format). The
// helper checks each answer — it parses as JSON and validates against the schema — and
// counts it in llm_output_invalid (a Rate, tagged reason: not_json, schema, ...). The
// mock answers JSON made from the schema; its invalid_json setting (a mock profile,
// docs/mock-conformance.md#structured-output) makes that share of answers invalid on purpose. About
// 30 s with the defaults.
//
//   xk6-llmstream run scripts/structured.js
//   xk6-llmstream run --mock-profile scripts/mock-profiles/invalid-json.json scripts/structured.js
//   LLM_BASE_URL=http://127.0.0.1:8000 LLM_MODEL=my-model xk6-llmstream run scripts/structured.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL (set to the mock by `xk6-llmstream run` when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_API          openai-chat (default) | openai-responses | anthropic-messages | gemini |
//                    cohere | ollama
//   LLM_MAX_INVALID  the highest acceptable share of invalid answers (default: 0.05)
//   LLM_VUS          VUs (default: 4)
//   LLM_TIME_SCALE   multiplies the duration (default: 1)
//   LLM_ITERATIONS   with real k6: iterations instead of a duration (tests)

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const vus = Number(__ENV.LLM_VUS || 4);

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
});

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer', minimum: 0, maximum: 120 },
    hobbies: { type: 'array', items: { type: 'string' }, maxItems: 3 },
  },
  required: ['name', 'age', 'hobbies'],
  additionalProperties: false,
};

const run = __ENV.LLM_ITERATIONS
  ? { executor: 'per-vu-iterations', vus: vus, iterations: Number(__ENV.LLM_ITERATIONS) }
  : { executor: 'constant-vus', vus: vus, duration: `${Math.max(1, Math.round(30 * scale))}s` };

export const options = {
  scenarios: { structured: run },
  thresholds: {
    llm_requests_failed: ['rate<0.01'],
    llm_output_invalid: [`rate<=${Number(__ENV.LLM_MAX_INVALID || 0.05)}`],
  },
};

export default function () {
  const r = llm.chat({
    messages: [{ role: 'user', content: 'Invent a person: name, age and up to three hobbies.' }],
    max_tokens: 128,
    response_format: { type: 'json_schema', json_schema: { name: 'person', schema: schema, strict: true } },
  });
  check(r, {
    'stream completed': (x) => x.ok,
    'answer is valid JSON for the schema': (x) => x.outputInvalid === '',
  });
}
