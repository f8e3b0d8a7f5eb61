// multi-turn.js — conversations: each VU plays whole sessions of a multi-turn dataset, one
// after another. A Session keeps the history, sends it with each new user message,
// appends the model's answer, tags every request with its turn (1, 2, …), and waits a
// think time between turns. TTFT by turn shows the cost of a growing context (and a
// server's prefix cache reusing it). About 30 s with the defaults.
//
//   xk6-llmstream run scripts/multi-turn.js
//   xk6-llmstream dataset --requests 500 --turns 5 --input-tokens 500 --turn-input-tokens 100 -o chat.jsonl
//   LLM_DATASET=$PWD/chat.jsonl LLM_THINK=2s,8s xk6-llmstream run scripts/multi-turn.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_API   as in smoke.js (not openai-completions)
//   LLM_DATASET      the JSONL file (default: data/multi-turn.jsonl)
//   LLM_THINK        think time between turns: a duration or min,max (default: 1s,3s),
//                    scaled by LLM_TIME_SCALE
//   LLM_VUS          VUs (default: 4)
//   LLM_TIME_SCALE   multiplies the duration and think times (default: 1)
//   LLM_ITERATIONS   with real k6: iterations (sessions per VU) instead of a duration
//
// data/multi-turn.jsonl was made with:
//   xk6-llmstream dataset --requests 36 --turns 3 --input-tokens 120 --turn-input-tokens 40 \
//     --output-tokens 16 --seed 1 -o scripts/data/multi-turn.jsonl

import { check } from 'k6';
import { Client, Dataset, dataURL, Session, durationMs } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const vus = Number(__ENV.LLM_VUS || 4);
const think = String(__ENV.LLM_THINK || '1s,3s').split(',').map((d) => durationMs(d.trim(), 'LLM_THINK') * scale);

const data = new Dataset(dataURL(__ENV.LLM_DATASET || './data/multi-turn.jsonl', import.meta));

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
  scenarios: { conversation: run },
  thresholds: { llm_requests_failed: ['rate<0.01'] },
};

export default function () {
  const session = new Session(llm, { thinkTime: think.length === 1 ? think[0] : /** @type {[number, number]} */ (think) });
  const results = session.run(data.nextSession());
  check(results, {
    'every turn streamed': (rs) => rs.every((r) => r.ok),
    'history grew': () => session.history.length === 2 * results.length,
  });
}
