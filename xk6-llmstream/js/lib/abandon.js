// Abandonment: a share of requests whose user leaves before the answer ends,
// after a time or a number of tokens. The helper does the leaving (it cancels
// the upstream request and stops reading); this file reads the option and
// picks, seeded, which requests leave.

import { durationMs } from './durations.js';
import { prng } from './random.js';

const ABANDON_KEYS = ['afterMs', 'afterTokens', 'share', 'seed'];

/**
 * abandonOption reads an abandon option ({ afterMs, afterTokens, share, seed })
 * of `where` ('new Client' or 'chat'); null for none (undefined, null, false).
 * afterMs is a duration (ms or '2s'), afterTokens a whole number of output
 * tokens, share the part of requests that leave (default 1), seed the draw's
 * seed (default 1): the same seed picks the same requests.
 */
export function abandonOption(v, where) {
  if (v === undefined || v === null || v === false) return null;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError(`llmstream: ${where}: abandon must be an object like { afterTokens: 50, share: 0.1 } or { afterMs: '2s' }`);
  }
  for (const k of Object.keys(v)) {
    if (ABANDON_KEYS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: ${where}: abandon: unknown key ${JSON.stringify(k)} (known: ${ABANDON_KEYS.join(', ')})`);
    }
  }
  const out = { afterMs: null, afterTokens: null, share: 1, seed: 1 };
  if (v.afterMs !== undefined && v.afterMs !== null) {
    out.afterMs = durationMs(v.afterMs, 'abandon.afterMs');
    if (!(out.afterMs >= 1)) throw new TypeError(`llmstream: ${where}: abandon.afterMs must be at least 1 ms, got ${JSON.stringify(v.afterMs)}`);
  }
  if (v.afterTokens !== undefined && v.afterTokens !== null) {
    if (!Number.isInteger(v.afterTokens) || v.afterTokens < 1) {
      throw new TypeError(`llmstream: ${where}: abandon.afterTokens must be a whole number ≥ 1, got ${JSON.stringify(v.afterTokens)}`);
    }
    out.afterTokens = v.afterTokens;
  }
  if (out.afterMs === null && out.afterTokens === null) {
    throw new TypeError(`llmstream: ${where}: abandon needs afterMs or afterTokens (or both: the first reached wins)`);
  }
  if (v.share !== undefined) {
    if (typeof v.share !== 'number' || !(v.share >= 0 && v.share <= 1)) {
      throw new TypeError(`llmstream: ${where}: abandon.share must be a number in [0, 1], got ${JSON.stringify(v.share)}`);
    }
    out.share = v.share;
  }
  if (v.seed !== undefined) {
    if (!Number.isInteger(v.seed)) throw new TypeError(`llmstream: ${where}: abandon.seed must be a whole number, got ${JSON.stringify(v.seed)}`);
    out.seed = v.seed;
  }
  return out;
}

/**
 * abandonDraw is the uniform draw in (0, 1) of a VU's seq-th request: a
 * function of the seed, the VU's id and the request's number in the VU only,
 * so that a run with the same seed, VUs and iterations picks the same
 * requests. A request leaves when its draw is below the share.
 */
export function abandonDraw(seed, vu, seq) {
  let h = Math.imul(Math.floor(Number(seed)) | 0, 0x9e3779b1);
  h = (h ^ Math.imul(Number(vu) | 0, 0x85ebca6b)) >>> 0;
  h = (h ^ Math.imul(Number(seq) | 0, 0xc2b2ae35)) >>> 0;
  return prng(h)();
}

/**
 * abandonWire is the wire's abandon member for a request (',"abandon":{...}'),
 * or '' when the request does not leave.
 */
export function abandonWire(a, vu, seq) {
  if (a === null || a.share === 0) return '';
  if (a.share < 1 && abandonDraw(a.seed, vu, seq) >= a.share) return '';
  const w = {};
  if (a.afterMs !== null) w.after_ms = a.afterMs;
  if (a.afterTokens !== null) w.after_tokens = a.afterTokens;
  return ',"abandon":' + JSON.stringify(w);
}
