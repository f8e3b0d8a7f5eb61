// replayAgents(): an agent trace's model calls, each sent when the calls it
// waits for have finished plus the recorded think or tool time
// (docs/traffic.md; dataset --format otlp-genai writes "after").

import { callScheduled, sleepUntil } from './internal/schedule.js';
import { stringTags } from './internal/values.js';
import { mTaskE2E, mTaskSteps } from './metrics.js';
import { withMetadata } from './vu.js';

const OPTIONS = ['speedup', 'tags'];

function agentOptions(o) {
  const opts = o === undefined || o === null ? {} : o;
  if (typeof opts !== 'object' || Array.isArray(opts)) throw new TypeError('llmstream: replayAgents(dataset, options, fn): options must be an object like { speedup: 2 }');
  for (const k of Object.keys(opts)) {
    if (OPTIONS.indexOf(k) < 0) throw new TypeError(`llmstream: replayAgents: unknown option ${JSON.stringify(k)} (known: ${OPTIONS.join(', ')})`);
  }
  const speedup = opts.speedup === undefined ? 1 : Number(opts.speedup);
  if (!(speedup > 0 && isFinite(speedup))) throw new TypeError(`llmstream: replayAgents: speedup must be a number > 0, got ${JSON.stringify(opts.speedup)}`);
  return { speedup: speedup, tags: stringTags(opts.tags, 'replayAgents tags') };
}

// agentEntries reads and checks the entries: at_ms on each, after naming
// earlier entries with a delay_ms ≥ 0.
function agentEntries(dataset) {
  const n = dataset !== null && typeof dataset === 'object' && typeof dataset.length === 'number' ? dataset.length : -1;
  if (n < 0) throw new TypeError('llmstream: replayAgents(dataset, options, fn): dataset must be a Dataset or an array of entries');
  const at = (i) => (typeof dataset.at === 'function' && !Array.isArray(dataset) ? dataset.at(i) : dataset[i]);
  const entries = [];
  const index = {};
  for (let i = 0; i < n; i++) {
    const e = at(i);
    const where = `entry ${i + 1} (id ${JSON.stringify(e && e.id)})`;
    if (e === null || typeof e !== 'object' || !(typeof e.at_ms === 'number' && e.at_ms >= 0 && isFinite(e.at_ms))) {
      throw new Error(`llmstream: replayAgents: ${where} has no "at_ms" ≥ 0 (build the file with xk6-llmstream dataset --format otlp-genai)`);
    }
    const after = e.after === undefined ? [] : e.after;
    if (!Array.isArray(after)) throw new Error(`llmstream: replayAgents: ${where}: "after" must be an array of {id, delay_ms}`);
    const parents = after.map((a) => {
      if (a === null || typeof a !== 'object' || !(String(a.id) in index) || !(typeof a.delay_ms === 'number' && a.delay_ms >= 0 && isFinite(a.delay_ms))) {
        throw new Error(`llmstream: replayAgents: ${where}: after ${JSON.stringify(a)} must name an earlier entry's id with a delay_ms ≥ 0`);
      }
      return { i: index[String(a.id)], delayMs: a.delay_ms };
    });
    index[String(e.id)] = i;
    entries.push({ e: e, parents: parents, session: e.tags && typeof e.tags.agent_session === 'string' ? e.tags.agent_session : String(e.id) });
  }
  return entries;
}

/**
 * Replays an agent trace: calls fn(entry, i) — which should start the request
 * and return its promise (llm.asyncChat(entry)) — for an entry without
 * "after" at its at_ms, and for one with "after" once every entry it names has
 * finished (its promise settled) plus that entry's delay_ms, the latest of
 * them; times are divided by speedup. Each session (tags.agent_session) adds
 * its time from its first send to its last finish to llm_agent_task_e2e and
 * its model calls to llm_agent_task_steps (tagged as its last call, when fn
 * resolves to the Client's result); each call's own metrics carry the
 * entry's agent_session and agent_step tags. Resolves to { requests, failed,
 * sessions, startMs } (failed: calls that threw or whose result has ok false).
 */
export async function replayAgents(dataset, options, fn) {
  const o = agentOptions(options);
  if (typeof fn !== 'function') throw new TypeError('llmstream: replayAgents(dataset, options, fn): fn must be a function');
  const entries = agentEntries(dataset);
  const stats = { requests: entries.length, failed: 0, sessions: 0, startMs: Date.now() };
  const sessions = {};
  const finished = new Array(entries.length);
  const step = async (k) => {
    const x = entries[k];
    let due = stats.startMs + x.e.at_ms / o.speedup;
    if (x.parents.length > 0) {
      const ends = await Promise.all(x.parents.map((p) => finished[p.i]));
      due = Math.max(...x.parents.map((p, j) => ends[j] + p.delayMs / o.speedup));
    }
    await sleepUntil(due);
    const s = sessions[x.session] || (sessions[x.session] = { first: Date.now(), last: 0, steps: 0 });
    s.steps++;
    try {
      const r = await callScheduled(fn, [x.e, k], due);
      if (r !== null && typeof r === 'object') {
        if (r.ok === false) stats.failed++;
        if (Date.now() >= s.last) s.result = r;
      }
    } catch (err) {
      stats.failed++;
      if (stats.failed === 1) console.error(`llmstream: replayAgents: fn(entry ${k + 1}) failed: ${err}`);
    }
    const end = Date.now();
    s.last = Math.max(s.last, end);
    return end;
  };
  for (let k = 0; k < entries.length; k++) finished[k] = step(k);
  await Promise.all(finished);
  for (const id of Object.keys(sessions)) {
    const s = sessions[id];
    stats.sessions++;
    // Every llm_* sample names a request: a session's are its last call's
    // (as Agent's tasks do), with that call's own tags.
    const last = s.result;
    if (last === undefined || last.warmup) continue;
    const own = last.raw && last.raw.tags && typeof last.raw.tags === 'object' ? last.raw.tags
      : { model: last.model, api: last.api, status: String(last.status), error: last.errorKind, token_source: last.tokenSource };
    const tags = Object.assign({}, own, o.tags);
    withMetadata(last.requestId, last.entryId, () => {
      mTaskE2E.add(s.last - s.first, tags);
      mTaskSteps.add(s.steps, tags);
    });
  }
  return stats;
}
