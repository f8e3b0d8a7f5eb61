// arrivals(): open-loop load from one VU.

import { durationMs } from './durations.js';
import { callScheduled, sleepUntil } from './internal/schedule.js';
import { stringTags } from './internal/values.js';
import { mDropped, mLateness } from './metrics.js';
import { gammaSampler, prng } from './random.js';

const ARRIVAL_OPTIONS = ['rate', 'burstiness', 'seed', 'maxInFlight', 'duration', 'count', 'tags', 'schedule'];

function arrivalOptions(o) {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) {
    throw new TypeError('llmstream: arrivals(options, fn): options must be an object like { rate: 10, duration: "1m" }');
  }
  for (const k of Object.keys(o)) {
    if (ARRIVAL_OPTIONS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: arrivals: unknown option ${JSON.stringify(k)} (known: ${ARRIVAL_OPTIONS.join(', ')})`);
    }
  }
  const num = (k, def, ok, want) => {
    const v = o[k] === undefined ? def : Number(o[k]);
    if (!ok(v)) throw new TypeError(`llmstream: arrivals: ${k} must be ${want}, got ${JSON.stringify(o[k])}`);
    return v;
  };
  const out = {
    rate: num('rate', NaN, (v) => v > 0 && isFinite(v), 'a number of requests per second > 0'),
    burstiness: num('burstiness', 1, (v) => v > 0 && isFinite(v), 'a number > 0 (1: Poisson; < 1 burstier, > 1 more even)'),
    seed: num('seed', 1, (v) => Number.isInteger(v) && v >= 0, 'a whole number ≥ 0'),
    maxInFlight: num('maxInFlight', 1000, (v) => Number.isInteger(v) && v > 0, 'a whole number > 0'),
    count: num('count', 0, (v) => Number.isInteger(v) && v >= 0, 'a whole number ≥ 0 (0: until duration)'),
    durationMs: o.duration === undefined ? 0 : durationMs(o.duration, 'arrivals: duration'),
    tags: stringTags(o.tags, 'arrivals tags'),
    schedule: Boolean(o.schedule),
  };
  if (out.count === 0 && !(out.durationMs > 0)) {
    throw new TypeError('llmstream: arrivals: give a duration (e.g. "1m") or a count of arrivals, or both');
  }
  return out;
}

/**
 * Open-loop arrivals from one VU: calls fn(i) at arrival times whose gaps are
 * gamma-distributed with mean 1/rate and shape `burstiness` (1: Poisson, as
 * vLLM's --burstiness), without waiting for earlier calls; fn should start
 * the request and return its promise (llm.asyncChat). Arrival times are
 * absolute (sums of the gaps from the start), so timer lateness does not lower
 * the rate. An arrival that finds maxInFlight calls unfinished is dropped and
 * counted in llm_arrivals_dropped — never delayed into a closed loop. Each
 * call's lateness (start − intended time) goes to llm_arrival_lateness. Stops
 * after `count` arrivals or `duration`, whichever first, then waits for the
 * calls in flight. Resolves to { arrivals, sent, dropped, failed, startMs,
 * schedule } (schedule: the intended offsets in ms, with schedule: true).
 */
export async function arrivals(options, fn) {
  const o = arrivalOptions(options);
  if (typeof fn !== 'function') throw new TypeError('llmstream: arrivals(options, fn): fn must be a function');
  const gap = gammaSampler(o.burstiness, 1000 / o.rate, prng(o.seed));
  const stats = { arrivals: 0, sent: 0, dropped: 0, failed: 0, startMs: Date.now(), schedule: o.schedule ? [] : null };
  let inFlight = 0;
  let drained = null;
  const settle = () => {
    inFlight--;
    if (inFlight === 0 && drained !== null) drained();
  };
  let at = 0;
  for (let i = 0; o.count === 0 || i < o.count; i++) {
    at += gap();
    if (o.durationMs > 0 && at >= o.durationMs) break;
    await sleepUntil(stats.startMs + at);
    stats.arrivals++;
    if (stats.schedule !== null) stats.schedule.push(at);
    if (inFlight >= o.maxInFlight) {
      stats.dropped++;
      mDropped.add(1, o.tags);
      continue;
    }
    mLateness.add(Math.max(0, Date.now() - stats.startMs - at), o.tags);
    inFlight++;
    stats.sent++;
    const p = callScheduled(fn, [i], stats.startMs + at);
    p.then(settle, (e) => {
      stats.failed++;
      if (stats.failed === 1) console.error(`llmstream: arrivals: fn(${i}) failed: ${e}`);
      settle();
    });
  }
  if (inFlight > 0) await new Promise((resolve) => { drained = resolve; });
  return stats;
}
