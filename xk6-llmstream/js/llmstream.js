// llmstream.js — a streaming LLM client for stock k6 (v1.x and v2.x).
//
// The k6 VU posts each chat request to the xk6-llmstream helper on loopback; the
// helper streams from the LLM API, timestamps every server-sent event as it is read
// off the socket and answers with the timings. This module turns those timings into
// k6 metrics (llm_ttft, llm_tpot, llm_itl, ...) and returns a result object that a
// script can check().
//
//   import { Client } from './llmstream.js';
//   const llm = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.LLM_API_KEY,
//                            model: 'gpt-4o-mini' });
//   export default function () {
//     const r = llm.chat({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64 });
//   }
//
// Plain ES modules, no build step: this entry re-exports the public API from the
// files under lib/, one concern each, which import one another by relative path
// and import only k6's own modules. k6 resolves a relative import from the
// importing module, so the module works imported by relative path, file:// URL
// or https:// URL alike (k6 refuses http:// imports). The API reference is
// docs/module.md; the types are in llmstream.d.ts.
//
//   lib/client.js     Client: chat(), asyncChat(), the result object
//   lib/names.js      dialects (APIS), metric names, metadata keys
//   lib/metrics.js    the llm_* metrics and how a request's samples are added
//   lib/answer.js     reading the helper's answer
//   lib/dialects.js   each dialect's request body
//   lib/media.js      image() parts and response_format in each dialect's shape
//   lib/options.js    itl, slo, fixedOutputTokens; lib/pricing.js: prices
//   lib/fields.js     known request fields, the warning for a typo
//   lib/urls.js       endpoint URLs; lib/durations.js: '1m30s' and friends
//   lib/vu.js         VU id, request ids, sample metadata
//   lib/entry.js      dataset entries; lib/dataset.js: Dataset
//   lib/calls.js      Client.embed(), Client.rerank(): embeddings and rerank
//   lib/session.js    Session (multi-turn)
//   lib/agent.js      Agent (tool-calling loops), toolsFor
//   lib/random.js     seeded draws; lib/arrivals.js, lib/replay.js: open-loop load
//   lib/abandon.js    the abandon option: which requests leave, and when
//   lib/probes.js     probe(), probeScenario(): light requests beside the load
//   lib/internal/     helpers shared by the files above (not part of the API)

export { VERSION } from './lib/version.js';
export {
  APIS,
  METRICS,
  HELPER_ERROR_KIND,
  HELPER_REQUEST_NAME,
  REQUEST_ID_METADATA,
  WORKLOAD_METRICS,
  ENTRY_ID_METADATA,
  CALL_METRICS,
} from './lib/names.js';
export { Client } from './lib/client.js';
export { CALL_APIS } from './lib/calls.js';
export { durationMs } from './lib/durations.js';
export { endpointURL } from './lib/urls.js';
export { dialectBody, FIXED_LENGTH_DIALECTS } from './lib/dialects.js';
export { image } from './lib/media.js';
export { parseDataset, Dataset, dataURL } from './lib/dataset.js';
export { Session } from './lib/session.js';
export { Agent, toolsFor } from './lib/agent.js';
export { prng, gammaSampler } from './lib/random.js';
export { arrivals } from './lib/arrivals.js';
export { replay, REPLAY_LAG_P99_MS, REPLAY_LAG_P50_MS, REPLAY_HORIZON_MS } from './lib/replay.js';
export { probe, probeScenario, PROBE_TAG } from './lib/probes.js';
export { replayAgents } from './lib/agentreplay.js';
