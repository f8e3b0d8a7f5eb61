// script.ts — the TypeScript variant of the starter load test, written by
// `xk6-llmstream init`. k6 v1.0 and later run .ts scripts directly (no build
// step); llmstream.d.ts beside it gives editors the module's types.
//
//   xk6-llmstream run script.ts                                  # against the built-in mock
//   LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=sk-... LLM_MODEL=gpt-4o-mini \
//     xk6-llmstream run script.ts --out json=results.json.gz     # against a real endpoint
//
// Environment: as in script.js (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_API,
// LLM_VUS, LLM_ITERATIONS).

import { check } from 'k6';
import { Client } from './llmstream.js';
import type { API, ClientOptions, Result } from './llmstream.js';

const clientOptions: ClientOptions = {
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: (__ENV.LLM_API || 'openai-chat') as API,
  body: { max_tokens: 64 }, // in every request body; chat(prompt) builds the rest for the api
  slo: { ttft: '2s', tpot: '100ms' }, // adds llm_slo_met: the share of requests within both
};
const llm = new Client(clientOptions);

export const options = {
  scenarios: {
    chat: {
      executor: 'shared-iterations',
      vus: Number(__ENV.LLM_VUS || 4),
      iterations: Number(__ENV.LLM_ITERATIONS || 40),
      maxDuration: '10m',
    },
  },
  thresholds: {
    llm_ttft: ['p(99)<5000'],
    llm_requests_failed: ['rate<0.01'],
  },
};

export default function (): void {
  const r: Result = llm.chat('Explain time to first token in one sentence.');
  check(r, { streamed: (x: Result) => x.ok });
}
