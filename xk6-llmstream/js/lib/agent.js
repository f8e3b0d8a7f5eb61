// Agent: tool-calling agent loops (docs/agents.md) — each API's tools and
// tool-result shapes, the loop, and the per-task metrics.

import { Client } from './client.js';
import { stringTags, plainObject } from './internal/values.js';
import { mTaskE2E, mTaskSteps, mTaskCompleted } from './metrics.js';
import { withMetadata } from './vu.js';

/**
 * toolsFor turns tools given as {name, description, parameters (a JSON
 * schema), strict (optional)} into the `tools` field of dialect api: OpenAI
 * chat, Cohere v2 and ollama {type: 'function', function: {...}}, OpenAI
 * Responses {type: 'function', name, description, parameters, strict},
 * Anthropic {name, description, input_schema}, Gemini [{functionDeclarations:
 * [{name, description, parametersJsonSchema}]}]. Responses always gets
 * strict (its FunctionTool requires it, and the API's default is true, which
 * refuses a schema without additionalProperties: false): false unless the
 * tool says strict: true; OpenAI chat gets function.strict when the tool
 * gives it.
 */
export function toolsFor(api, tools) {
  const list = tools.map((t, i) => {
    if (!t || typeof t.name !== 'string' || t.name === '') {
      throw new TypeError(`llmstream: tools[${i}] needs a name (and parameters, a JSON schema)`);
    }
    if (t.strict !== undefined && typeof t.strict !== 'boolean') {
      throw new TypeError(`llmstream: tools[${i}].strict must be true or false, got ${JSON.stringify(t.strict)}`);
    }
    return { name: t.name, description: t.description === undefined ? '' : String(t.description),
      parameters: t.parameters === undefined ? { type: 'object', properties: {} } : t.parameters, strict: t.strict };
  });
  const fn = (t) => ({ name: t.name, description: t.description, parameters: t.parameters });
  switch (api) {
    case 'openai-responses':
      return list.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: t.strict === true }));
    case 'openai-chat':
      return list.map((t) => ({ type: 'function', function: Object.assign(fn(t), t.strict === undefined ? {} : { strict: t.strict }) }));
    case 'anthropic-messages':
      return list.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    case 'gemini':
      return [{ functionDeclarations: list.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }];
    case 'openai-completions':
      throw new TypeError('llmstream: the openai-completions API has no tools; use openai-chat');
  }
  return list.map((t) => ({ type: 'function', function: fn(t) }));
}

// A conversation in each dialect's own shape: the first user message, the
// model's tool calls, the tool results.
const CONVERSATION = {
  chat: {
    start: (prompt, system) => ({ messages: (system ? [{ role: 'system', content: system }] : []).concat([{ role: 'user', content: prompt }]) }),
    add: (body, calls, results) => {
      body.messages.push({ role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
      calls.forEach((c, i) => body.messages.push({ role: 'tool', tool_call_id: c.id, content: results[i] }));
    },
  },
  cohere: {
    start: (prompt, system) => CONVERSATION.chat.start(prompt, system),
    add: (body, calls, results) => {
      body.messages.push({ role: 'assistant', tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
      calls.forEach((c, i) => body.messages.push({ role: 'tool', tool_call_id: c.id, content: results[i] }));
    },
  },
  ollama: {
    start: (prompt, system) => CONVERSATION.chat.start(prompt, system),
    add: (body, calls, results) => {
      body.messages.push({ role: 'assistant', content: '', tool_calls: calls.map((c) => ({ function: { name: c.name, arguments: c.args || {} } })) });
      calls.forEach((c, i) => body.messages.push({ role: 'tool', tool_name: c.name, content: results[i] }));
    },
  },
  anthropic: {
    start: (prompt, system) => Object.assign(system ? { system: system } : {}, { messages: [{ role: 'user', content: prompt }] }),
    add: (body, calls, results) => {
      body.messages.push({ role: 'assistant', content: calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args || {} })) });
      body.messages.push({ role: 'user', content: calls.map((c, i) => ({ type: 'tool_result', tool_use_id: c.id, content: results[i] })) });
    },
  },
  responses: {
    start: (prompt, system) => Object.assign(system ? { instructions: system } : {}, { input: [{ role: 'user', content: prompt }] }),
    add: (body, calls, results) => {
      calls.forEach((c, i) => {
        body.input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments });
        body.input.push({ type: 'function_call_output', call_id: c.id, output: results[i] });
      });
    },
  },
  gemini: {
    start: (prompt, system) => Object.assign(system ? { systemInstruction: { parts: [{ text: system }] } } : {}, { contents: [{ role: 'user', parts: [{ text: prompt }] }] }),
    add: (body, calls, results) => {
      body.contents.push({ role: 'model', parts: calls.map((c) => ({ functionCall: { name: c.name, args: c.args || {} } })) });
      body.contents.push({ role: 'user', parts: calls.map((c, i) => ({ functionResponse: { name: c.name, response: { result: results[i] } } })) });
    },
  },
};
const CONVERSATION_OF = {
  'openai-chat': 'chat', cohere: 'cohere', ollama: 'ollama', 'anthropic-messages': 'anthropic',
  'openai-responses': 'responses', gemini: 'gemini',
};

const AGENT_OPTIONS = ['tools', 'run', 'results', 'maxSteps', 'system', 'tags', 'body'];
const DEFAULT_AGENT_STEPS = 10;

/**
 * An Agent runs tool-calling tasks: run(prompt) sends the prompt with the
 * tools, runs the model's tool calls (the `run` function, else the canned
 * `results` by tool name), appends the calls and their results in the
 * dialect's own shape and sends again, until the model answers without a
 * tool call or maxSteps requests were sent. Every step's samples carry the
 * tag step (1, 2, ...); each task adds llm_agent_task_e2e (first step's
 * start → last step's end), llm_agent_task_steps and
 * llm_agent_task_completed (ended with an answer within maxSteps, every step
 * ok), tagged with the script's tags and the last step's module tags.
 */
export class Agent {
  constructor(client, options) {
    if (!(client instanceof Client)) {
      throw new TypeError('llmstream: new Agent(client, options): client must be a llmstream Client');
    }
    const o = options === undefined || options === null ? {} : options;
    for (const k of Object.keys(o)) {
      if (AGENT_OPTIONS.indexOf(k) < 0) {
        throw new TypeError(`llmstream: new Agent: unknown option ${JSON.stringify(k)} (known: ${AGENT_OPTIONS.join(', ')})`);
      }
    }
    if (!CONVERSATION_OF[client.api]) {
      throw new TypeError(`llmstream: new Agent: the ${client.api} API has no tool calls; use openai-chat`);
    }
    if (!Array.isArray(o.tools) || o.tools.length === 0) {
      throw new TypeError('llmstream: new Agent: tools must be a non-empty array of {name, description, parameters}');
    }
    if (o.run !== undefined && typeof o.run !== 'function') {
      throw new TypeError('llmstream: new Agent: run must be a function (call) => result');
    }
    if (o.run === undefined && (o.results === undefined || o.results === null || typeof o.results !== 'object')) {
      throw new TypeError('llmstream: new Agent: give run (a function of the tool call) or results (canned results by tool name)');
    }
    this.client = client;
    this.tools = toolsFor(client.api, o.tools);
    this._run = o.run === undefined ? null : o.run;
    this._results = o.results === undefined ? null : o.results;
    this.maxSteps = o.maxSteps === undefined ? DEFAULT_AGENT_STEPS : Number(o.maxSteps);
    if (!Number.isInteger(this.maxSteps) || this.maxSteps < 1) {
      throw new TypeError(`llmstream: new Agent: maxSteps must be a whole number ≥ 1, got ${JSON.stringify(o.maxSteps)}`);
    }
    this.system = o.system === undefined || o.system === null ? '' : String(o.system);
    this.tags = stringTags(o.tags, 'Agent tags');
    this.body = plainObject(o.body, 'Agent body');
    this._conv = CONVERSATION[CONVERSATION_OF[client.api]];
  }

  /**
   * Runs one task from a prompt and returns {ok, completed, steps (the
   * Results, each with .step), e2e (ms), text (the last answer's, when
   * keepText)}. Blocks like Client.chat.
   */
  run(prompt, callOptions) {
    const co = callOptions === undefined || callOptions === null ? {} : callOptions;
    const body = Object.assign({}, this.body, this._conv.start(String(prompt), this.system), { tools: this.tools });
    const steps = [];
    let completed = false;
    for (let step = 1; step <= this.maxSteps; step++) {
      const opts = Object.assign({}, co, { tags: Object.assign({}, this.tags, co.tags || {}, { step: String(step) }) });
      const r = this.client.chat(Object.assign({}, body), opts);
      r.step = step;
      steps.push(r);
      if (!r.ok) break;
      if (r.toolCalls.length === 0) {
        completed = true;
        break;
      }
      const results = r.toolCalls.map((c) => this._result(c));
      this._conv.add(body, r.toolCalls, results);
    }
    return this._taskDone(steps, completed, co);
  }

  // _result is a tool call's result as a string: the run function's (a
  // string, else its JSON) or the canned result of the tool's name.
  _result(call) {
    let v;
    if (this._run !== null) v = this._run(call);
    else if (Object.prototype.hasOwnProperty.call(this._results, call.name)) v = this._results[call.name];
    else v = { error: `no canned result for tool ${call.name}` };
    return typeof v === 'string' ? v : JSON.stringify(v === undefined ? null : v);
  }

  _taskDone(steps, completed, co) {
    const first = steps[0];
    const last = steps[steps.length - 1];
    let e2e = null;
    const s0 = first.raw && typeof first.raw.start_unix_ns === 'number' ? first.raw.start_unix_ns : null;
    const s1 = last.raw && typeof last.raw.start_unix_ns === 'number' ? last.raw.start_unix_ns : null;
    if (s0 !== null && s1 !== null && last.e2e !== null) {
      e2e = Math.round(((s1 - s0) / 1e6 + last.e2e) * 1000) / 1000;
    }
    const ok = steps.every((r) => r.ok);
    const task = { ok: ok, completed: completed && ok, steps: steps, e2e: e2e, text: last.text };
    if (!steps.some((r) => r.warmup)) {
      // The module's own tags are the last step's (the failed one, when a
      // step failed: the loop stops there).
      const own = last.raw && last.raw.tags && typeof last.raw.tags === 'object' ? last.raw.tags
        : { model: last.model, api: last.api, status: String(last.status), error: last.errorKind, token_source: last.tokenSource };
      const tags = Object.assign({}, this.client.tags, this.tags, co.tags || {}, own);
      // Every llm_* sample names a request: the task's are the last step's.
      withMetadata(last.requestId, last.entryId, () => {
        if (e2e !== null) mTaskE2E.add(e2e, tags);
        mTaskSteps.add(steps.length, tags);
        mTaskCompleted.add(task.completed ? 1 : 0, tags);
      });
    }
    return task;
  }
}
