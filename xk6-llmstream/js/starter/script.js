// script.js — a starter load test for a streaming LLM API, written by
// `xk6-llmstream init`. Edit it freely; llmstream.js and llmstream.d.ts beside it
// are the module and its types (docs: https://github.com/llmstream/xk6-llmstream).
//
//   xk6-llmstream run script.js                                  # against the built-in mock
//   LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=sk-... LLM_MODEL=gpt-4o-mini \
//     xk6-llmstream run script.js --out json=results.json.gz     # against a real endpoint
//   analyze summary results.json.gz
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL    API base URL (`xk6-llmstream run` points it at the mock when not set)
//   LLM_API_KEY     API key (never printed, never a tag)
//   LLM_MODEL       model name (default: mock)
//   LLM_API         openai-chat (default) | openai-completions | anthropic-messages
//   LLM_VUS         concurrent streams (default: 4)
//   LLM_ITERATIONS  requests in all, shared by the VUs (default: 40)

import { check } from 'k6';
import { Client } from './llmstream.js';

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('./llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  body: { max_tokens: 64 }, // in every request body; chat(prompt) builds the rest for the api
  slo: { ttft: '2s', tpot: '100ms' }, // adds llm_slo_met: the share of requests within both
});

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

export default function () {
  const r = llm.chat('Explain time to first token in one sentence.');
  check(r, { streamed: (x) => x.ok });
}
