// agent.js — tool-calling agent tasks: each iteration runs one task of an Agent, which
// sends the prompt with tools, runs the tool calls the model makes (here a small local
// function per tool), sends the calls and results back in the API's own shape, and repeats
// until the model answers without a tool call (or LLM_MAX_STEPS requests were sent).
// Every request's samples carry the tag step (1, 2, …); each task adds llm_agent_task_e2e,
// llm_agent_task_steps and llm_agent_task_completed; a tool-call answer adds llm_tool_calls
// and llm_tool_call_first_arg (time to the first argument byte). About 20 s with the defaults.
//
//   xk6-llmstream run --mock-profile scripts/mock-profiles/agent.json scripts/agent.js
//       (the mock calls a tool twice, then answers: 3-step tasks)
//   LLM_API=anthropic-messages xk6-llmstream run --mock-profile scripts/mock-profiles/agent.json scripts/agent.js
//   LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=sk-... LLM_MODEL=gpt-4o-mini \
//     xk6-llmstream run scripts/agent.js
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL, LLM_API_KEY, LLM_MODEL   as in smoke.js
//   LLM_API          openai-chat (default) | openai-responses | anthropic-messages | gemini |
//                    cohere | ollama
//   LLM_MAX_STEPS    the most requests of a task (default: 5)
//   LLM_VUS          VUs (default: 2)
//   LLM_TIME_SCALE   multiplies the duration (default: 1)
//   LLM_ITERATIONS   with real k6: tasks per VU instead of a duration

import { check } from 'k6';
import { Agent, Client } from '../xk6-llmstream/js/llmstream.js';

const scale = Number(__ENV.LLM_TIME_SCALE || 1);
const vus = Number(__ENV.LLM_VUS || 2);

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
  api: /** @type {import('../xk6-llmstream/js/llmstream.js').API} */ (__ENV.LLM_API || 'openai-chat'), // checked by the Client
});

/** @type {import('../xk6-llmstream/js/llmstream.js').Tool[]} */
const tools = [
  {
    name: 'get_weather',
    description: 'The weather forecast of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    description: 'The current time in a time zone',
    parameters: { type: 'object', properties: { tz: { type: 'string', enum: ['UTC', 'CET', 'JST'] } }, required: ['tz'] },
  },
];

/**
 * The tools themselves: instant, deterministic stand-ins (a real test might call a
 * service here, and its time would count in llm_agent_task_e2e).
 * @param {import('../xk6-llmstream/js/llmstream.js').ToolCall} call
 */
function runTool(call) {
  const a = call.args || {};
  if (call.name === 'get_weather') return { city: a.city || '?', forecast: 'sunny', high_c: 21 };
  if (call.name === 'get_time') return { tz: a.tz || 'UTC', time: '12:00' };
  return { error: `unknown tool ${call.name}` };
}

const agent = new Agent(llm, {
  tools: tools,
  run: runTool,
  maxSteps: Number(__ENV.LLM_MAX_STEPS || 5),
  system: 'You are a travel assistant. Use the tools, then answer in one sentence.',
  body: { max_tokens: 128 },
});

const run = __ENV.LLM_ITERATIONS
  ? { executor: 'per-vu-iterations', vus: vus, iterations: Number(__ENV.LLM_ITERATIONS) }
  : { executor: 'constant-vus', vus: vus, duration: `${Math.max(1, Math.round(20 * scale))}s` };

export const options = {
  scenarios: { agent: run },
  thresholds: {
    llm_requests_failed: ['rate<0.01'],
    llm_agent_task_completed: ['rate>0.99'],
    llm_tool_call_parse_failures: ['count<1'],
  },
};

export default function () {
  const task = agent.run('What should I pack for Paris this week, and what time is it there?');
  check(task, {
    'task completed': (t) => t.completed,
    'tool arguments parsed': (t) => t.steps.every((s) => s.toolCalls.every((c) => c.parseError === '')),
  });
}
