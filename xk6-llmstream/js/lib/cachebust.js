// cacheBust: a per-run salt at the start of every prompt (docs/traffic.md),
// so a server's prefix cache cannot serve one run's prompts from another's
// while prefixes shared within the run stay shared.

const SALT = /^[A-Za-z0-9_-]{1,64}$/;

// The salt of a Client's cacheBust option ('' : none). undefined follows
// LLM_CACHE_BUST=1 (the sweep sets it per level); true needs LLM_CACHE_SALT
// (`xk6-llmstream run` sets a fresh one per run); a string is the salt.
export function cacheBustSalt(opt, env) {
  const salt = typeof env.LLM_CACHE_SALT === 'string' ? env.LLM_CACHE_SALT : '';
  let s = '';
  if (opt === undefined || opt === null) {
    if (env.LLM_CACHE_BUST !== '1') return '';
    s = salt;
  } else if (opt === false) {
    return '';
  } else if (opt === true) {
    s = salt;
  } else if (typeof opt === 'string') {
    s = opt;
  } else {
    throw new TypeError(`llmstream: new Client: cacheBust must be true, false or a salt string, got ${JSON.stringify(opt)}`);
  }
  if (s === '') {
    throw new Error('llmstream: new Client: cacheBust needs a salt: run with `xk6-llmstream run` (it sets LLM_CACHE_SALT per run), ' +
      'set -e LLM_CACHE_SALT=..., or give cacheBust: "my-salt"');
  }
  if (!SALT.test(s)) throw new TypeError(`llmstream: new Client: the cache-bust salt ${JSON.stringify(s)} must be 1 to 64 of A-Z a-z 0-9 _ -`);
  return s;
}

// The marker put before the prompt's first text.
export function saltMarker(salt) {
  return `[cache-bust ${salt}]\n`;
}

// saltBody returns the request body (the Client's plain form: prompt, or
// Anthropic's system, or messages) with the marker at the start of its first
// text. The body's messages are copied, never changed in place: a dataset's
// entries are shared by every request.
export function saltBody(plain, salt) {
  if (salt === '') return plain;
  const mark = saltMarker(salt);
  const out = Object.assign({}, plain);
  if (typeof out.prompt === 'string') {
    out.prompt = mark + out.prompt;
  } else if (typeof out.system === 'string') {
    out.system = mark + out.system;
  } else if (Array.isArray(out.messages) && out.messages.length > 0) {
    const first = Object.assign({}, out.messages[0]);
    if (typeof first.content === 'string') {
      first.content = mark + first.content;
    } else if (Array.isArray(first.content)) {
      first.content = [{ type: 'text', text: mark }].concat(first.content);
    }
    out.messages = [first].concat(out.messages.slice(1));
  }
  return out;
}
