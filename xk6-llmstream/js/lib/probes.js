// Probes: light requests sent beside the load, at their own arrival rate and
// outside the script's concurrency, so that their TTFT shows how the load
// delays a newcomer (vLLM's --probe-request-rate, v0.27.0, in
// vllm/benchmarks/serve.py; there a single loop waits for each probe's
// answer before sleeping 1/rate, so a slow probe slows the probes. Here a k6
// constant-arrival-rate scenario starts them on schedule whatever the
// earlier ones do).

import { durationMs } from './durations.js';

/** The tag every probe's samples carry: probe=true. */
export const PROBE_TAG = 'probe';

const SCENARIO_KEYS = ['rate', 'duration', 'startTime', 'exec', 'preAllocatedVUs', 'maxVUs'];
const PROBE_KEYS = ['maxTokens', 'prompt', 'tags'];

function objectArg(v, what) {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new TypeError(`llmstream: ${what}: options must be an object`);
  return v;
}

/**
 * probeScenario is a k6 scenario that starts `rate` probes a second for
 * `duration` (a k6 constant-arrival-rate scenario: its own VUs, apart from
 * the load's, so a probe never waits for a load VU), running the script's
 * exported function `exec` (default 'probe'), tagged probe=true. Put it in
 * options.scenarios beside the load's scenarios.
 */
export function probeScenario(options) {
  const o = objectArg(options, 'probeScenario(options)');
  for (const k of Object.keys(o)) {
    if (SCENARIO_KEYS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: probeScenario: unknown option ${JSON.stringify(k)} (known: ${SCENARIO_KEYS.join(', ')})`);
    }
  }
  const rate = o.rate === undefined ? 1 : o.rate;
  if (typeof rate !== 'number' || !(rate > 0) || !isFinite(rate)) {
    throw new TypeError(`llmstream: probeScenario: rate must be probes per second > 0, got ${JSON.stringify(o.rate)}`);
  }
  if (o.duration === undefined) {
    throw new TypeError("llmstream: probeScenario: duration is required (how long to probe, e.g. '1m': the load's duration)");
  }
  if (!(durationMs(o.duration, 'probeScenario.duration') > 0)) {
    throw new TypeError('llmstream: probeScenario: duration must be greater than zero');
  }
  // k6's rate is whole iterations per timeUnit: 0.5/s is 1 per 2000 ms.
  const perMs = rate / 1000;
  let timeUnitMs = 1000;
  while (Math.abs(perMs * timeUnitMs - Math.round(perMs * timeUnitMs)) > 1e-9 && timeUnitMs < 3600000) timeUnitMs *= 10;
  const sc = {
    executor: 'constant-arrival-rate',
    rate: Math.max(1, Math.round(perMs * timeUnitMs)),
    timeUnit: timeUnitMs + 'ms',
    duration: typeof o.duration === 'number' ? o.duration + 'ms' : o.duration,
    preAllocatedVUs: o.preAllocatedVUs === undefined ? Math.max(1, Math.ceil(rate)) : o.preAllocatedVUs,
    maxVUs: o.maxVUs === undefined ? Math.max(10, Math.ceil(rate * 10)) : o.maxVUs,
    exec: o.exec === undefined ? 'probe' : String(o.exec),
    tags: { [PROBE_TAG]: 'true' },
  };
  if (o.startTime !== undefined) sc.startTime = typeof o.startTime === 'number' ? o.startTime + 'ms' : o.startTime;
  return sc;
}

/**
 * probe sends one light request with the Client: the prompt (default 'Hi')
 * as the single user message, maxTokens output tokens (default 1), tagged
 * probe=true (with the options' tags). Returns the chat() result.
 */
export function probe(client, options) {
  const o = objectArg(options, 'probe(client, options)');
  for (const k of Object.keys(o)) {
    if (PROBE_KEYS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: probe: unknown option ${JSON.stringify(k)} (known: ${PROBE_KEYS.join(', ')})`);
    }
  }
  const maxTokens = o.maxTokens === undefined ? 1 : o.maxTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new TypeError(`llmstream: probe: maxTokens must be a whole number ≥ 1, got ${JSON.stringify(o.maxTokens)}`);
  }
  const prompt = o.prompt === undefined ? 'Hi' : String(o.prompt);
  const body = client.api === 'openai-completions' ? { prompt: prompt, max_tokens: maxTokens }
    : { messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens };
  return client.chat(body, { tags: Object.assign({}, o.tags || {}, { [PROBE_TAG]: 'true' }) });
}
