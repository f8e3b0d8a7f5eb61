// Dataset: a JSONL file of entries shared by the VUs of a k6 process.

import { SharedArray } from 'k6/data';
import { checkEntry } from './entry.js';
import { prng } from './random.js';
import { vuID, totalVUs } from './vu.js';

/**
 * Parses a JSONL dataset (docs/dataset.md). Returns { entries, sessions }:
 * sessions are [start, length] spans of consecutive entries of one session,
 * turns 1, 2, …; an entry without a session is a span of its own. Errors
 * name the file and line.
 */
export function parseDataset(name, text) {
  if (typeof text !== 'string') {
    throw new TypeError(`llmstream: Dataset ${name}: the file's contents are not text`);
  }
  const entries = [];
  const sessions = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `${name}:${i + 1}`;
    let e;
    try {
      e = JSON.parse(line);
    } catch (err) {
      throw new Error(`llmstream: Dataset ${where}: not a JSON line: ${err.message || err}`);
    }
    checkEntry(e, where);
    const last = sessions.length > 0 ? sessions[sessions.length - 1] : null;
    const prev = last !== null ? entries[last[0] + last[1] - 1] : null;
    if (e.session !== undefined && prev !== null && prev.session === e.session) {
      if (e.turn !== prev.turn + 1) {
        throw new Error(`llmstream: Dataset ${where}: session ${JSON.stringify(e.session)} turn ${e.turn} follows turn ${prev.turn}; a session's entries must be consecutive, turns 1, 2, …`);
      }
      last[1]++;
    } else {
      if (e.session !== undefined && e.turn !== 1) {
        throw new Error(`llmstream: Dataset ${where}: session ${JSON.stringify(e.session)} starts at turn ${e.turn}, want 1`);
      }
      sessions.push([entries.length, 1]);
    }
    entries.push(e);
  }
  if (entries.length === 0) {
    throw new Error(`llmstream: Dataset ${name}: no entries (an empty file?)`);
  }
  return { entries: entries, sessions: sessions };
}

const DATASET_OPTIONS = ['order', 'seed', 'name', 'vus'];

/**
 * dataURL is where Dataset (k6's open()) reads a data file: an absolute
 * path (/…, C:\…) or a file:// URL as given; a relative one resolved from the
 * calling script's folder by its importMeta (import.meta.resolve, k6
 * v0.54+), because k6 v2 warns that open() in a module will stop resolving
 * it from the main script. 'data/x.jsonl' is read as './data/x.jsonl'.
 */
export function dataURL(path, importMeta) {
  if (typeof path !== 'string' || path === '') {
    throw new TypeError("llmstream: dataURL(path, import.meta): path must be a data file's path, e.g. './data/requests.jsonl'");
  }
  if (/^(\/|[A-Za-z]:[\\/]|file:\/\/)/.test(path)) return path;
  if (!importMeta || typeof importMeta.resolve !== 'function') {
    throw new TypeError('llmstream: dataURL(path, import.meta): pass your script\'s import.meta (k6 v0.54+) to resolve a relative path from its folder');
  }
  return importMeta.resolve(/^\.\.?\//.test(path) ? path : './' + path);
}

/**
 * A JSONL dataset made by `xk6-llmstream dataset`, loaded once per k6 process
 * into a SharedArray (create it in the init context). Hands out entries
 * deterministically: order 'sequential' (default) gives VU k the entries
 * k−1, k−1+V, k−1+2V, … (V = the test's VUs, from options) shifted by the
 * seed, so VUs never replay the same entry at once; order 'random' samples
 * with a PRNG seeded by (seed, VU).
 */
export class Dataset {
  constructor(path, options) {
    const o = options === undefined ? {} : options;
    if (typeof path !== 'string' || path === '') {
      throw new TypeError("llmstream: new Dataset(path): path must be the JSONL file's path, e.g. './data/requests.jsonl'");
    }
    for (const k of Object.keys(o)) {
      if (DATASET_OPTIONS.indexOf(k) < 0) {
        throw new TypeError(`llmstream: new Dataset: unknown option ${JSON.stringify(k)} (known: ${DATASET_OPTIONS.join(', ')})`);
      }
    }
    this.order = o.order === undefined ? 'sequential' : String(o.order);
    if (this.order !== 'sequential' && this.order !== 'random') {
      throw new TypeError(`llmstream: new Dataset: order must be 'sequential' or 'random', got ${JSON.stringify(o.order)}`);
    }
    this.seed = o.seed === undefined ? 1 : Number(o.seed);
    if (!Number.isInteger(this.seed) || this.seed < 0) {
      throw new TypeError(`llmstream: new Dataset: seed must be a whole number ≥ 0, got ${JSON.stringify(o.seed)}`);
    }
    this.vus = o.vus === undefined ? null : Number(o.vus);
    const name = o.name ? String(o.name) : 'llmstream-dataset:' + path;
    let spans = null;
    try {
      this._entries = new SharedArray(name, () => {
        const d = parseDataset(path, open(path));
        spans = d.sessions;
        return d.entries;
      });
      this._sessions = new SharedArray(name + '#sessions', () => (spans !== null ? spans : parseDataset(path, open(path)).sessions));
    } catch (e) {
      const msg = String(e && e.message ? e.message : e);
      if (/init context/.test(msg)) {
        throw new Error(`llmstream: new Dataset(${JSON.stringify(path)}) must be created in the init context (the top level of the script): ${msg}`);
      }
      throw e;
    }
    this._n = 0; // entries handed out by next() in this VU
    this._s = 0; // sessions handed out by nextSession() in this VU
    this._rng = null;
  }

  /** The number of entries. */
  get length() {
    return this._entries.length;
  }

  /** The number of sessions (an entry without a session counts as one). */
  get sessionCount() {
    return this._sessions.length;
  }

  /** Entry i (0-based, wrapping). */
  at(i) {
    const n = this._entries.length;
    return this._entries[((Math.floor(i) % n) + n) % n];
  }

  /** The next entry for this VU (see the class comment for the order). */
  next() {
    return this.at(this._pick(this._entries.length, this._n++));
  }

  /** The entries of the next session for this VU, turn 1 first. */
  nextSession() {
    const span = this._sessions[this._pick(this._sessions.length, this._s++)];
    const out = [];
    for (let i = 0; i < span[1]; i++) out.push(this._entries[span[0] + i]);
    return out;
  }

  _pick(n, k) {
    const vu = Number(vuID()) || 1;
    if (this.order === 'random') {
      if (this._rng === null) this._rng = prng(this.seed * 1000003 + vu);
      return Math.floor(this._rng() * n);
    }
    const stride = this.vus !== null ? this.vus : totalVUs();
    return (this.seed + (vu - 1) + k * stride) % n;
  }
}
