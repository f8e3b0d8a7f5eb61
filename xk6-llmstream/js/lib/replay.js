// replay(): a trace's requests at their recorded send times.

import { durationMs } from './durations.js';
import { callScheduled, sleepUntil } from './internal/schedule.js';
import { stringTags } from './internal/values.js';
import { mLateness } from './metrics.js';

const REPLAY_OPTIONS = ['speedup', 'from', 'to', 'count', 'maxInFlight', 'tags'];

// The send lag bound of a degraded replay, as the runner and analyze judge it
// (loadgen: p99 above 500 ms or median above 10 ms).
export const REPLAY_LAG_P99_MS = 500;
export const REPLAY_LAG_P50_MS = 10;

// The latest send time replay() schedules, in ms after its start (trace time
// divided by speedup): 7 days, longer than any k6 test is meant to run. An
// entry beyond it is refused (a far-future at_ms or a tiny speedup), not
// waited for. Documented in docs/input-bounds.md.
export const REPLAY_HORIZON_MS = 7 * 24 * 3600 * 1000;

// shown is a value as an error message shows it: numbers as JavaScript
// writes them (NaN, Infinity: JSON would say null), the rest as JSON.
function shown(v) {
  return typeof v === 'number' || typeof v === 'bigint' ? String(v) : JSON.stringify(v);
}

function replayOptions(o) {
  const opts = o === undefined || o === null ? {} : o;
  if (typeof opts !== 'object' || Array.isArray(opts)) {
    throw new TypeError('llmstream: replay(dataset, options, fn): options must be an object like { speedup: 10, maxInFlight: 256 }');
  }
  for (const k of Object.keys(opts)) {
    if (REPLAY_OPTIONS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: replay: unknown option ${JSON.stringify(k)} (known: ${REPLAY_OPTIONS.join(', ')})`);
    }
  }
  const num = (k, def, ok, want) => {
    const v = opts[k] === undefined ? def : Number(opts[k]);
    if (!ok(v)) throw new TypeError(`llmstream: replay: ${k} must be ${want}, got ${shown(opts[k])}`);
    return v;
  };
  const out = {
    speedup: num('speedup', 1, (v) => v > 0 && isFinite(v), 'a number > 0 (2: twice as fast as the trace)'),
    count: num('count', 0, (v) => Number.isInteger(v) && v >= 0, 'a whole number ≥ 0 (0: every request in the window)'),
    maxInFlight: num('maxInFlight', 1000, (v) => Number.isInteger(v) && v > 0, 'a whole number > 0'),
    fromMs: opts.from === undefined ? 0 : durationMs(opts.from, 'replay: from'),
    toMs: opts.to === undefined ? Infinity : durationMs(opts.to, 'replay: to'),
    tags: stringTags(opts.tags, 'replay tags'),
    fromGiven: opts.from !== undefined,
  };
  if (!(out.toMs > out.fromMs)) {
    throw new TypeError(`llmstream: replay: the window from ${opts.from} to ${opts.to} is empty (to must be after from)`);
  }
  return out;
}

/**
 * Replays a trace: calls fn(entry, i) at each entry's trace time (its at_ms,
 * from `xk6-llmstream dataset --input TRACE --format mooncake|bailian|burstgpt|azure`)
 * divided by `speedup`, without waiting
 * for earlier calls; fn should start the request and return its promise
 * (llm.asyncChat(entry)). Entries with at_ms in [from, to) of trace time are
 * replayed, at most `count` of them; at_ms must not decrease, and a send
 * time more than REPLAY_HORIZON_MS after the start is refused. Send times are
 * absolute (start + offset), so a late timer does not stretch the trace.
 * At most maxInFlight calls run at once: a request that finds no free slot
 * waits for one — it is sent late, never dropped — so its lateness shows in
 * llm_arrival_lateness and in llm_ttft_scheduled / llm_e2e_scheduled, which
 * measure from the intended send time. Resolves to { requests, sent, failed,
 * waited, startMs, lagP50Ms, lagP99Ms, lagMaxMs, degraded }.
 */
export async function replay(dataset, options, fn) {
  const o = replayOptions(options);
  if (typeof fn !== 'function') throw new TypeError('llmstream: replay(dataset, options, fn): fn must be a function');
  const n = dataset !== null && typeof dataset === 'object' && typeof dataset.length === 'number' ? dataset.length : -1;
  if (n < 0) throw new TypeError('llmstream: replay(dataset, options, fn): dataset must be a Dataset or an array of entries');
  const at = (i) => (typeof dataset.at === 'function' && !Array.isArray(dataset) ? dataset.at(i) : dataset[i]);
  const stats = { requests: 0, sent: 0, failed: 0, waited: 0, startMs: Date.now(), lagP50Ms: null, lagP99Ms: null, lagMaxMs: null, degraded: false };
  const lags = [];
  let inFlight = 0;
  let freed = null; // resolves when a slot frees
  let drained = null;
  const settle = () => {
    inFlight--;
    if (freed !== null) {
      const f = freed;
      freed = null;
      f();
    }
    if (inFlight === 0 && drained !== null) drained();
  };
  let prevAt = -Infinity;
  let base = null; // the trace time that maps to the start: from, else the first request's
  for (let i = 0; i < n; i++) {
    const e = at(i);
    const t = e === null || typeof e !== 'object' ? undefined : e.at_ms;
    if (!(typeof t === 'number' && t >= 0 && isFinite(t))) {
      throw new Error(`llmstream: replay: entry ${i + 1} (id ${JSON.stringify(e && e.id)}) has no "at_ms" send time ≥ 0, got ${shown(t)} (build the file from a trace: xk6-llmstream dataset --input TRACE --format mooncake|bailian|burstgpt|azure)`);
    }
    if (t < prevAt) {
      throw new Error(`llmstream: replay: entry ${i + 1} (id ${JSON.stringify(e.id)}) has at_ms ${t}, before the previous entry's ${prevAt}: a trace's entries must be in time order`);
    }
    prevAt = t;
    if (t < o.fromMs) continue;
    if (t >= o.toMs) break;
    if (o.count > 0 && stats.requests >= o.count) break;
    stats.requests++;
    if (base === null) base = o.fromGiven ? o.fromMs : t;
    const offset = (t - base) / o.speedup;
    if (!(offset <= REPLAY_HORIZON_MS)) {
      throw new Error(`llmstream: replay: entry ${i + 1} (id ${JSON.stringify(e.id)}) is due ${shown(offset)} ms after the start (at_ms ${t}, speedup ${o.speedup}), beyond the replay horizon of ${REPLAY_HORIZON_MS} ms (7 days): check its at_ms, or use a larger speedup or a "to" bound`);
    }
    const due = stats.startMs + offset;
    await sleepUntil(due);
    if (inFlight >= o.maxInFlight) stats.waited++;
    while (inFlight >= o.maxInFlight) await new Promise((resolve) => { freed = resolve; });
    const lag = Math.max(0, Date.now() - due);
    lags.push(lag);
    mLateness.add(lag, o.tags);
    inFlight++;
    stats.sent++;
    const idx = i;
    callScheduled(fn, [e, i], due).then(settle, (err) => {
      stats.failed++;
      if (stats.failed === 1) console.error(`llmstream: replay: fn(entry ${idx + 1}) failed: ${err}`);
      settle();
    });
  }
  if (inFlight > 0) await new Promise((resolve) => { drained = resolve; });
  if (lags.length > 0) {
    lags.sort((a, b) => a - b);
    const pct = (p) => {
      const r = (p / 100) * (lags.length - 1);
      const lo = Math.floor(r);
      return lo + 1 < lags.length ? lags[lo] + (lags[lo + 1] - lags[lo]) * (r - lo) : lags[lo];
    };
    stats.lagP50Ms = pct(50);
    stats.lagP99Ms = pct(99);
    stats.lagMaxMs = lags[lags.length - 1];
    stats.degraded = stats.lagP99Ms > REPLAY_LAG_P99_MS || stats.lagP50Ms > REPLAY_LAG_P50_MS;
  }
  return stats;
}
