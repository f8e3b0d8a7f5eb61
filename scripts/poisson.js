// poisson.js — open-loop arrivals with realistic burstiness, in stock k6: one scheduler VU
// starts requests at random times — gaps drawn from a gamma distribution with mean
// 1/LLM_RATE and shape LLM_BURSTINESS (1: Poisson arrivals; < 1 burstier; > 1 more even,
// as vLLM's `bench serve --burstiness`) — without waiting for earlier ones (asyncChat).
// At most LLM_MAX_IN_FLIGHT requests are in flight; an arrival beyond that is dropped and
// counted in llm_arrivals_dropped, never delayed (the load stays open-loop). The
// scheduler's own lateness per arrival is llm_arrival_lateness. About 30 s by default.
//
//   xk6-llmstream run scripts/poisson.js
//   LLM_RATE=20 LLM_BURSTINESS=0.5 LLM_BASE_URL=http://127.0.0.1:8000 xk6-llmstream run scripts/poisson.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_API   as in smoke.js
//   LLM_RATE          mean arrivals per second (default: 10)
//   LLM_BURSTINESS    gamma shape of the gaps (default: 1, Poisson)
//   LLM_SEED          seed of the gaps (default: 1)
//   LLM_MAX_IN_FLIGHT most requests in flight (default: 1000)
//   LLM_ARRIVALS      stop after this many arrivals (default: none; the duration decides)
//   LLM_DURATION      how long arrivals go on (default: 30s), scaled by LLM_TIME_SCALE
//   LLM_MAX_TOKENS    max_tokens per request (default: 32)
//   LLM_DATASET       replay this JSONL dataset instead of one prompt (optional)
//   LLM_DUMP_SCHEDULE 1: print the intended arrival offsets (ms) at the end (tests)
//   LLM_TIME_SCALE    multiplies the duration (default: 1)

import { Client, Dataset, dataURL, arrivals, durationMs } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const durMs = durationMs(__ENV.LLM_DURATION || '30s', 'LLM_DURATION') * scale;
const maxTokens = Number(__ENV.LLM_MAX_TOKENS || 32);

const data = __ENV.LLM_DATASET ? new Dataset(dataURL(__ENV.LLM_DATASET, import.meta)) : null;

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
});

export const options = {
  scenarios: {
    poisson: {
      executor: 'shared-iterations', vus: 1, iterations: 1,
      maxDuration: `${Math.ceil(durMs / 1000) + 120}s`, // the arrivals, then the requests in flight
    },
  },
  thresholds: { llm_requests_failed: ['rate<0.01'] },
};

export default async function () {
  const stats = await arrivals({
    rate: Number(__ENV.LLM_RATE || 10),
    burstiness: Number(__ENV.LLM_BURSTINESS || 1),
    seed: Number(__ENV.LLM_SEED || 1),
    maxInFlight: Number(__ENV.LLM_MAX_IN_FLIGHT || 1000),
    count: Number(__ENV.LLM_ARRIVALS || 0),
    duration: durMs,
    schedule: __ENV.LLM_DUMP_SCHEDULE === '1',
  }, () => llm.asyncChat(data !== null ? data.next() : { messages: [{ role: 'user', content: 'Hello' }], max_tokens: maxTokens }));
  console.log(`arrivals: ${stats.arrivals} sent: ${stats.sent} dropped: ${stats.dropped} failed: ${stats.failed}`);
  if (stats.schedule !== null) console.log(`schedule: ${stats.startMs} ${JSON.stringify(stats.schedule)}`);
}
