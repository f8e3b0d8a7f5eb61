// Session: a multi-turn conversation of one VU.

import { sleep } from 'k6';
import { Client } from './client.js';
import { durationMs } from './durations.js';
import { isEntry } from './entry.js';
import { stringTags } from './internal/values.js';
import { prng } from './random.js';
import { vuID } from './vu.js';

const SESSION_OPTIONS = ['system', 'thinkTime', 'tags', 'seed'];

/**
 * A multi-turn conversation of one VU. Each chat() sends the whole history
 * plus the new user message, tags the request with its turn (from 1), and on
 * success appends the message and the model's answer (the Session asks for
 * the answer text: keepText). A failed turn leaves the history as it was.
 * run(entries) plays a dataset session (Dataset.nextSession()) with think
 * time between turns.
 */
export class Session {
  constructor(client, options) {
    if (!(client instanceof Client)) {
      throw new TypeError('llmstream: new Session(client, options): client must be a llmstream Client');
    }
    const o = options === undefined ? {} : options;
    for (const k of Object.keys(o)) {
      if (SESSION_OPTIONS.indexOf(k) < 0) {
        throw new TypeError(`llmstream: new Session: unknown option ${JSON.stringify(k)} (known: ${SESSION_OPTIONS.join(', ')})`);
      }
    }
    this.client = client;
    this.system = o.system === undefined || o.system === null ? '' : String(o.system);
    this.tags = stringTags(o.tags, 'Session tags');
    this.think = thinkOption(o.thinkTime);
    this._seed = o.seed === undefined ? 1 : Number(o.seed);
    this._rng = null;
    this.reset();
  }

  /** Forgets the conversation: the next chat() is turn 1. */
  reset() {
    this._history = this.system ? [{ role: 'system', content: this.system }] : [];
    this.turn = 0; // turns answered so far
  }

  /** The messages so far (a copy). */
  get history() {
    return this._history.map((m) => ({ role: m.role, content: m.content }));
  }

  /** Sends the next turn: a user message string, or a dataset entry. Blocks like Client.chat. */
  chat(message, callOptions) {
    const t = this._turn(message, callOptions);
    return this._answered(t, this.client.chat(t.params, t.options));
  }

  /** Like chat(), through Client.asyncChat. Do not start a turn before the previous one ended. */
  asyncChat(message, callOptions) {
    let t;
    try {
      t = this._turn(message, callOptions);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.client.asyncChat(t.params, t.options).then((r) => this._answered(t, r));
  }

  /**
   * Plays entries (a dataset session) turn by turn, with think time before
   * every turn after the first; stops at the first failed turn. Returns the
   * results.
   */
  run(entries, callOptions) {
    const out = [];
    for (let i = 0; i < entries.length; i++) {
      if (i > 0) {
        const ms = this.thinkMs();
        if (ms > 0) sleep(ms / 1000);
      }
      const r = this.chat(entries[i], callOptions);
      out.push(r);
      if (!r.ok) break;
    }
    return out;
  }

  /** A think time draw, ms (the thinkTime option; 0 without it). */
  thinkMs() {
    const th = this.think;
    if (th === null) return 0;
    if (th.max === th.min) return th.min;
    if (this._rng === null) this._rng = prng(this._seed * 7919 + (Number(vuID()) || 1));
    return th.min + (th.max - th.min) * this._rng();
  }

  _turn(message, callOptions) {
    let added;
    let extra = {};
    if (isEntry(message)) {
      added = Array.isArray(message.messages) ? message.messages : [{ role: 'user', content: message.prompt }];
      extra = { id: message.id, max_tokens: message.max_tokens, output_tokens: message.output_tokens, tags: message.tags };
    } else if (typeof message === 'string') {
      added = [{ role: 'user', content: message }];
    } else {
      throw new TypeError('llmstream: Session.chat(message): message must be a string or a dataset entry');
    }
    added = added.map((m) => ({ role: m.role, content: m.content }));
    const params = Object.assign({ v: 1 }, extra, { messages: this._history.concat(added) });
    const co = Object.assign({}, callOptions || {});
    co.tags = Object.assign({}, this.tags, co.tags || {}, { turn: String(this.turn + 1) });
    co.keepText = true;
    return { params: params, options: co, added: added };
  }

  _answered(t, r) {
    r.turn = this.turn + 1;
    if (r.ok) {
      this._history = this._history.concat(t.added, [{ role: 'assistant', content: r.text }]);
      this.turn++;
    }
    return r;
  }
}

function thinkOption(v) {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) {
    if (v.length !== 2) throw new TypeError("llmstream: new Session: thinkTime must be a duration or [min, max], e.g. ['1s', '5s']");
    const lo = durationMs(v[0], 'thinkTime[0]');
    const hi = durationMs(v[1], 'thinkTime[1]');
    if (hi < lo) throw new TypeError('llmstream: new Session: thinkTime [min, max] has max < min');
    return { min: lo, max: hi };
  }
  const ms = durationMs(v, 'thinkTime');
  return { min: ms, max: ms };
}
