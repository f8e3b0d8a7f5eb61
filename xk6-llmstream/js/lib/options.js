// The Client's options that shape its samples: itl, slo, fixedOutputTokens.

import { durationMs } from './durations.js';
import { FIXED_LENGTH_DIALECTS } from './dialects.js';
import { positiveInt } from './internal/values.js';
import { METRICS } from './names.js';

// The slo keys and the metric each limits (every sample ≤ the limit).
const SLO_METRICS = Object.freeze({
  ttft: METRICS.ttft, ttftAnswer: METRICS.ttftAnswer, tpot: METRICS.tpot, e2e: METRICS.e2e, maxGap: METRICS.itlMax,
});
const SLO_KEYS = Object.keys(SLO_METRICS);

export function itlOption(v) {
  if (v === undefined || v === null || v === 'all' || v === true) return { mode: 'all', fraction: 1 };
  // The helper keeps the per-token data in its records; k6 gets none.
  if (v === 'records') return { mode: 'records', fraction: 0 };
  if (v === 'off' || v === false) return { mode: 'off', fraction: 0 };
  if (typeof v === 'number' && v >= 0 && v <= 1) {
    if (v === 0) return { mode: 'off', fraction: 0 };
    if (v === 1) return { mode: 'all', fraction: 1 };
    return { mode: 'fraction', fraction: v };
  }
  throw new TypeError(`llmstream: new Client: itl must be 'all', 'off', 'records' or a fraction between 0 and 1, got ${JSON.stringify(v)}`);
}

export function sloOption(v) {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError("llmstream: new Client: slo must be an object like { ttft: '2s', tpot: '50ms', maxGap: '500ms' }");
  }
  const out = {};
  let n = 0;
  for (const k of Object.keys(v)) {
    if (k === 'deadline') {
      out.deadline = deadlineOption(v.deadline);
      n++;
      continue;
    }
    if (SLO_KEYS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: new Client: slo: unknown limit ${JSON.stringify(k)} (known: ${SLO_KEYS.join(', ')}, deadline)`);
    }
    out[k] = durationMs(v[k], 'slo.' + k);
    n++;
  }
  if (n === 0) {
    throw new TypeError("llmstream: new Client: slo has no limits; give at least one, e.g. { ttft: '2s' }");
  }
  return out;
}

// deadlineOption reads slo.deadline: { ttft: '1s', perToken: '50ms' }, token
// i due at ttft + (i − 1) × perToken (metrics.Deadline in Go, the one rule).
function deadlineOption(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError("llmstream: new Client: slo.deadline must be an object like { ttft: '1s', perToken: '50ms' }");
  }
  for (const k of Object.keys(v)) {
    if (k !== 'ttft' && k !== 'perToken') {
      throw new TypeError(`llmstream: new Client: slo.deadline: unknown field ${JSON.stringify(k)} (known: ttft, perToken)`);
    }
  }
  if (v.ttft === undefined || v.perToken === undefined) {
    throw new TypeError("llmstream: new Client: slo.deadline needs both ttft and perToken, e.g. { ttft: '1s', perToken: '50ms' }");
  }
  const out = { ttft: durationMs(v.ttft, 'slo.deadline.ttft'), perToken: durationMs(v.perToken, 'slo.deadline.perToken') };
  if (!(out.ttft > 0) || !(out.perToken > 0)) {
    throw new TypeError('llmstream: new Client: slo.deadline: ttft and perToken must be > 0');
  }
  return out;
}

// sampleOptions are what shapes a Client's samples, as the helper takes them
// (helper.SampleOptions): the itl mode, stages, the slo's limits, the prices.
export function sampleOptions(c) {
  const o = { itl: c.itl.mode };
  if (c.itl.mode === 'fraction') o.fraction = c.itl.fraction;
  if (c.stages) o.stages = true;
  if (c.slo !== null) {
    const keys = Object.keys(c.slo).filter((k) => k !== 'deadline');
    o.slo = { limits: keys.map((k) => ({ metric: SLO_METRICS[k], op: '<=', value: c.slo[k] })) };
    if (c.slo.deadline) o.slo.deadline = { ttft_ms: c.slo.deadline.ttft, per_token_ms: c.slo.deadline.perToken };
  }
  if (c.prices !== null) {
    o.prices = { input: c.prices.input, output: c.prices.output, cached_input: c.prices.cachedInput };
  }
  // Every request of a Client that abandons has an llm_requests_abandoned sample.
  if (c.abandon !== null) o.abandonment = true;
  return o;
}

// workloadOptions reads the Client options of fixed output length.
export function workloadOptions(o, api) {
  return {
    fixedOutput: fixedOutputOption(o.fixedOutputTokens, api),
    vllmExtras: o.vllmExtras === undefined ? true : Boolean(o.vllmExtras),
  };
}

function fixedOutputOption(v, api) {
  if (v === undefined || v === null || v === false) return null;
  if (v !== true && !positiveInt(v)) {
    throw new TypeError(`llmstream: new Client: fixedOutputTokens must be true (each request's expected length: a dataset entry's output_tokens, else its max_tokens) or a whole number of tokens > 0, got ${JSON.stringify(v)}`);
  }
  const d = FIXED_LENGTH_DIALECTS[api];
  if (d === undefined) {
    throw new TypeError(`llmstream: new Client: fixedOutputTokens is not supported for api ${JSON.stringify(api)} (supported: ${Object.keys(FIXED_LENGTH_DIALECTS).join(', ')})`);
  }
  return { tokens: v === true ? null : v, extras: d.extras };
}
