// replay.js — replay a production trace at its own timing, in stock k6: one scheduler VU
// sends each request of a trace dataset at its trace time (at_ms) divided by the speed-up,
// without waiting for earlier ones (asyncChat), at most LLM_MAX_IN_FLIGHT at once. A
// request that finds no free slot waits and is sent late, never dropped: its lateness is
// llm_arrival_lateness, and llm_ttft_scheduled / llm_e2e_scheduled measure from the time
// it was meant to be sent. Prompts have the trace's exact input lengths and equal hash_ids
// blocks are equal prefixes, so a server's prefix cache sees the trace's reuse; the output
// length is the trace's (fixedOutputTokens). `xk6-llmstream run` warns when the send lag
// says the replay was degraded (docs/module-workloads.md#replay).
//
//   xk6-llmstream dataset --input mooncake_trace.jsonl --format mooncake --requests 2000 -o trace.jsonl
//   LLM_DATASET=$PWD/trace.jsonl LLM_SPEEDUP=4 xk6-llmstream run scripts/replay.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_API   as in smoke.js
//   LLM_DATASET        the trace dataset (default: data/trace.jsonl, next to this script)
//   LLM_SPEEDUP        trace time runs this many times faster (default: 1)
//   LLM_FROM, LLM_TO   replay only the trace's window [from, to), e.g. 10m and 20m
//   LLM_REQUESTS       at most this many requests (default: all in the window)
//   LLM_MAX_IN_FLIGHT  most requests in flight (default: 1000)
//   LLM_SLO_MAX_GAP    stall SLO: the longest gap between tokens, e.g. 500ms (optional)
//   LLM_SLO_TPOT       TPOT limit, e.g. 50ms (optional; with LLM_SLO_MAX_GAP, both)
//   LLM_VLLM_EXTRAS    0 to leave out ignore_eos/min_tokens for servers that refuse them
//   LLM_TIME_SCALE     multiplies the trace's duration (default: 1; tests shorten it)
//
// data/trace.jsonl was made from a five-request trace written for the tests:
//   xk6-llmstream dataset --input xk6-llmstream/workload/testdata/trace/mooncake.jsonl \
//     --format mooncake -o scripts/data/trace.jsonl

import { Client, Dataset, dataURL, replay, durationMs } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const speedup = Number(__ENV.LLM_SPEEDUP || 1) / scale;
const data = new Dataset(dataURL(__ENV.LLM_DATASET || './data/trace.jsonl', import.meta));

const slo = {};
if (__ENV.LLM_SLO_MAX_GAP) slo.maxGap = __ENV.LLM_SLO_MAX_GAP;
if (__ENV.LLM_SLO_TPOT) slo.tpot = __ENV.LLM_SLO_TPOT;

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  fixedOutputTokens: true,
  vllmExtras: __ENV.LLM_VLLM_EXTRAS !== '0',
  slo: Object.keys(slo).length > 0 ? slo : undefined,
});

// The trace's span (the last entry's at_ms) sets the scenario's maxDuration.
const spanMs = data.length > 0 ? data.at(data.length - 1).at_ms || 0 : 0;
const fromMs = __ENV.LLM_FROM ? durationMs(__ENV.LLM_FROM, 'LLM_FROM') : 0;

export const options = {
  scenarios: {
    // One VU, one iteration: the scheduler. shared-iterations starts it at once and lets
    // it run to maxDuration; replay() sets its own timers from absolute send times.
    replay: {
      executor: 'shared-iterations', vus: 1, iterations: 1,
      maxDuration: `${Math.ceil(Math.max(0, spanMs - fromMs) / speedup / 1000) + 120}s`,
    },
  },
  thresholds: { llm_requests_failed: ['rate<0.01'] },
};

export default async function () {
  /** @type {import('../xk6-llmstream/js/llmstream.js').ReplayOptions} */
  const o = { speedup: speedup, maxInFlight: Number(__ENV.LLM_MAX_IN_FLIGHT || 1000) };
  if (__ENV.LLM_FROM) o.from = __ENV.LLM_FROM;
  if (__ENV.LLM_TO) o.to = __ENV.LLM_TO;
  if (__ENV.LLM_REQUESTS) o.count = Number(__ENV.LLM_REQUESTS);
  const s = await replay(data, o, (entry) => llm.asyncChat(entry));
  const f = (/** @type {number | null} */ v) => (v === null ? '-' : v.toFixed(1));
  console.log(`replay: start ${s.startMs} requests ${s.requests} sent ${s.sent} failed ${s.failed} waited ${s.waited} ` +
    `lag p50 ${f(s.lagP50Ms)} ms p99 ${f(s.lagP99Ms)} ms max ${f(s.lagMaxMs)} ms${s.degraded ? ' DEGRADED' : ''}`);
}
