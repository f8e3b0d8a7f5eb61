// Dataset entries (docs/dataset.md): recognising one, checking one, and the
// request body of one in a Client's dialect.

import { positiveInt } from './internal/values.js';
import { entryImages } from './media.js';

// A dataset entry (docs/dataset.md) is recognised by "v" and messages or prompt.
export function isEntry(p) {
  return p !== null && typeof p === 'object' && !Array.isArray(p) && p.v === 1 &&
    (Array.isArray(p.messages) || typeof p.prompt === 'string');
}

// The request body of a dataset entry in the Client's dialect: its messages
// (or prompt) and max_tokens. Entries with a prompt become one user message on
// chat APIs; on openai-completions messages must be a single user message.
// Anthropic's system messages go to "system".
export function entryBody(e, api) {
  const body = {};
  if (positiveInt(e.max_tokens)) body.max_tokens = e.max_tokens;
  const messages = (Array.isArray(e.messages) ? e.messages : [{ role: 'user', content: e.prompt }]).map(entryImages);
  if (api === 'openai-completions') {
    if (typeof e.prompt === 'string') {
      body.prompt = e.prompt;
    } else if (messages.length === 1) {
      body.prompt = messages[0].content;
    } else {
      throw new TypeError(`llmstream: chat(entry ${JSON.stringify(e.id)}): openai-completions needs a prompt, and the entry has ${messages.length} messages (build it with xk6-llmstream dataset --as-prompt)`);
    }
    return body;
  }
  if (api === 'anthropic-messages') {
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
    if (system.length > 0) body.system = system.join('\n\n');
    body.messages = messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content }));
    return body;
  }
  body.messages = messages.map((m) => ({ role: m.role, content: m.content }));
  return body;
}

export function checkEntry(e, where) {
  const bad = (msg) => new Error(`llmstream: Dataset ${where}: ${msg}`);
  if (e === null || typeof e !== 'object' || Array.isArray(e)) throw bad('not a JSON object');
  if (e.v !== 1) throw bad(`"v" is ${JSON.stringify(e.v)}, want 1 (the entry format version this module reads)`);
  const hasMsgs = e.messages !== undefined;
  if (hasMsgs === (e.prompt !== undefined)) throw bad('want exactly one of "messages" and "prompt"');
  if (hasMsgs) {
    if (!Array.isArray(e.messages) || e.messages.length === 0) throw bad('"messages" must be a non-empty array');
    e.messages.forEach((m, j) => {
      if (m === null || typeof m !== 'object' || typeof m.role !== 'string' || typeof m.content !== 'string') {
        throw bad(`messages[${j}] must be {"role": string, "content": string}`);
      }
    });
  } else if (typeof e.prompt !== 'string') {
    throw bad('"prompt" must be a string');
  }
  for (const k of ['max_tokens', 'output_tokens', 'input_tokens', 'turn']) {
    if (e[k] !== undefined && !(Number.isInteger(e[k]) && e[k] >= 0)) throw bad(`"${k}" must be a whole number ≥ 0, got ${JSON.stringify(e[k])}`);
  }
  if (e.at_ms !== undefined && !(typeof e.at_ms === 'number' && e.at_ms >= 0 && isFinite(e.at_ms))) {
    throw bad(`"at_ms" must be a send time in ms ≥ 0, got ${JSON.stringify(e.at_ms)}`);
  }
  if (e.session !== undefined && (typeof e.session !== 'string' || !positiveInt(e.turn))) {
    throw bad('"session" must be a string, with "turn" ≥ 1');
  }
  if (e.tags !== undefined && (e.tags === null || typeof e.tags !== 'object' || Array.isArray(e.tags))) {
    throw bad('"tags" must be an object of strings');
  }
}
