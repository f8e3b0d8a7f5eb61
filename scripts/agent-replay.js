// agent-replay.js — replay recorded agent sessions: each model call of an agent trace is
// sent when the calls it waits for have finished plus the recorded think or tool time
// (replayAgents), sessions side by side from their recorded starts. Per-session latency is
// llm_agent_task_e2e (first send to last finish) and llm_agent_task_steps; each call's own
// metrics (llm_ttft, llm_e2e, ...) carry the tags agent_session and agent_step.
//
//   xk6-llmstream dataset --input spans.otlp.jsonl --format otlp-genai -o agent-trace.jsonl
//   LLM_DATASET=$PWD/agent-trace.jsonl xk6-llmstream run scripts/agent-replay.js
//
// The agent trace is OpenTelemetry GenAI spans in OTLP JSON (docs/traffic.md): every span
// with gen_ai.operation.name chat is a model call, its traceId the session.
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_API   as in smoke.js
//   LLM_DATASET        the built agent trace (default: data/agent-trace.jsonl, next to this script)
//   LLM_SPEEDUP        trace time runs this many times faster (default: 1)
//
// data/agent-trace.jsonl was built from data/agent-trace.otlp.jsonl (24 sessions, made by
// scripts/agent_replay_test.go: go test ./scripts -run TestAgentTraceSample -update-agent-trace):
//   xk6-llmstream dataset --input scripts/data/agent-trace.otlp.jsonl --format otlp-genai \
//     -o scripts/data/agent-trace.jsonl

import { Client, Dataset, dataURL, replayAgents } from '../xk6-llmstream/js/llmstream.js';

/** @param {string} p */
const data = new Dataset(dataURL(__ENV.LLM_DATASET || './data/agent-trace.jsonl', import.meta));
const speedup = Number(__ENV.LLM_SPEEDUP || 1);

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
  fixedOutputTokens: true,
  vllmExtras: __ENV.LLM_VLLM_EXTRAS !== '0',
});

export const options = {
  scenarios: { agents: { executor: 'shared-iterations', vus: 1, iterations: 1, maxDuration: '10m' } },
  thresholds: { llm_requests_failed: ['rate<0.01'] },
};

export default async function () {
  const s = await replayAgents(data, { speedup: speedup }, (entry) => llm.asyncChat(entry));
  console.log(`agents: start ${s.startMs} requests ${s.requests} sessions ${s.sessions} failed ${s.failed}`);
}
