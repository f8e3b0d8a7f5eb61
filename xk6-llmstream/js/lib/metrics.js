// The module's k6 metrics, declared in the init context of every VU, and the
// functions that add a request's samples (as the helper answers them) and
// read single values back out of them.

import { Trend, Counter, Rate } from 'k6/metrics';
import { METRICS, WORKLOAD_METRICS } from './names.js';

// The module's metrics, declared in the init context of every VU. The helper
// answers each request with its samples by metric name (metrics.FromRecord in
// Go, the one definition of a request's samples); the module adds them as they
// are. llm_slo_met is declared by the first Client with an slo.
const TIME_TRENDS = ['ttft', 'ttftAnswer', 'tpot', 'itl', 'itlMax', 'e2e', 'ttftScheduled', 'e2eScheduled', 'serverPrefill', 'serverTPOT', 'clientLag',
  'stageConnect', 'stageSend', 'stageWait', 'stageFirstEvent', 'stageFirstToken', 'toolCallFirstArg'];
const COUNTERS = ['outputTokens', 'inputTokens', 'cachedInputTokens', 'itlZeroGaps', 'cost', 'toolCalls', 'toolCallParseFailures'];
const metricByName = {};
for (const k of TIME_TRENDS) metricByName[METRICS[k]] = new Trend(METRICS[k], true);
for (const k of COUNTERS) metricByName[METRICS[k]] = new Counter(METRICS[k]);
metricByName[METRICS.clientCPUIdle] = new Trend(METRICS.clientCPUIdle);
metricByName[METRICS.requestsFailed] = new Rate(METRICS.requestsFailed);
metricByName[METRICS.requestsAbandoned] = new Rate(METRICS.requestsAbandoned);
metricByName[METRICS.outputTokenMismatch] = new Rate(METRICS.outputTokenMismatch);
metricByName[METRICS.outputInvalid] = new Rate(METRICS.outputInvalid);
metricByName[WORKLOAD_METRICS.outputLengthMismatch] = new Counter(WORKLOAD_METRICS.outputLengthMismatch);
export const mDropped = new Counter(WORKLOAD_METRICS.arrivalsDropped);
export const mLateness = new Trend(WORKLOAD_METRICS.arrivalLateness, true);
// An Agent's per-task metrics: only the Agent sees a whole task (its steps
// are separate requests, each with its own samples from the helper).
export const mTaskE2E = new Trend(METRICS.agentTaskE2E, true);
export const mTaskSteps = new Trend(METRICS.agentTaskSteps);
export const mTaskCompleted = new Rate(METRICS.agentTaskCompleted);

let mSLO = null; // created by the first Client that has an slo (in the init context)

// declareSLOMetric declares llm_slo_met the first time a Client with an slo
// is made; k6 allows it only in the init context, which the error says.
export function declareSLOMetric(deadline) {
  try {
    if (mSLO === null) {
      mSLO = new Rate(METRICS.sloMet);
      metricByName[METRICS.sloMet] = mSLO;
    }
    // An slo with a deadline adds llm_fluidity and llm_deadline_met.
    if (deadline && metricByName[METRICS.deadlineMet] === undefined) {
      metricByName[METRICS.fluidity] = new Trend(METRICS.fluidity);
      metricByName[METRICS.deadlineMet] = new Rate(METRICS.deadlineMet);
    }
  } catch (e) {
    throw new Error(`llmstream: a Client with slo must be created in the init context (the top level of the script), because it declares the ${METRICS.sloMet} metric: ${e}`);
  }
}

// declareMetric adds a metric declared by another concern (lib/calls.js) to
// the ones addSamples knows.
export function declareMetric(name, metric) {
  metricByName[name] = metric;
}

// addSamples adds a request's samples ({metric: value or [values]}, as the
// helper answers them) with tags, and with a value's own tags from
// sampleTags ({metric: [tags per value]}, null when none) on top; a metric
// this module does not declare is skipped.
export function addSamples(samples, tags, sampleTags) {
  // Object.keys and an index loop: for-in costs k6 (sobek) about twice as much.
  const keys = Object.keys(samples);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const m = metricByName[k];
    if (m === undefined) continue;
    const v = samples[k];
    const own = sampleTags ? sampleTags[k] : undefined;
    if (typeof v === 'number') {
      m.add(v, own ? withOwn(tags, own[0]) : tags);
      continue;
    }
    for (let j = 0; j < v.length; j++) m.add(v[j], own ? withOwn(tags, own[j]) : tags);
  }
}

// withOwn is tags with a value's own tags (llm_output_invalid's reason) on top.
function withOwn(tags, own) {
  return own ? Object.assign({}, tags, own) : tags;
}

// firstSample is a request's first sample of a metric, null when none.
export function firstSample(samples, metric) {
  const v = samples[metric];
  if (v === undefined) return null;
  if (typeof v === 'number') return v;
  return v.length > 0 ? v[0] : null;
}

// allSamples is a request's samples of a metric ([] when none).
export function allSamples(samples, metric) {
  const v = samples[metric];
  if (v === undefined) return [];
  return typeof v === 'number' ? [v] : v;
}

// failureSamples are the samples of a request the helper did not answer for
// (unreachable, or it refused the request): what metrics.FromRecord makes of a
// record with only an error (a test holds the two together).
export function failureSamples(c) {
  const out = {};
  if (c.itl.mode === 'all' || c.itl.mode === 'fraction') out[METRICS.itlZeroGaps] = 0;
  out[METRICS.outputTokens] = 0;
  out[METRICS.inputTokens] = 0;
  out[METRICS.requestsFailed] = 1;
  if (c.abandon !== null) out[METRICS.requestsAbandoned] = 0;
  if (c.slo !== null) out[METRICS.sloMet] = 0;
  if (c.slo !== null && c.slo.deadline) out[METRICS.deadlineMet] = 0;
  if (c.prices !== null) out[METRICS.cost] = 0;
  return out;
}
