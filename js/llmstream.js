// llmstream.js — a streaming LLM client for stock k6 (v1.x and v2.x).
//
// The k6 VU posts each chat request to the xk6-llmstream helper on loopback; the
// helper streams from the LLM API, timestamps every server-sent event as it is read
// off the socket and answers with the timings. This module turns those timings into
// k6 metrics (llm_ttft, llm_tpot, llm_itl, ...) and returns a result object that a
// script can check().
//
//   import { Client } from './llmstream.js';
//   const llm = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.LLM_API_KEY,
//                            model: 'gpt-4o-mini' });
//   export default function () {
//     const r = llm.chat({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64 });
//   }
//
// Plain ES module, no build step: it imports only k6's own modules, so it can be
// imported by relative path, file:// or https:// URL. The API reference is
// docs/module.md; the types are in llmstream.d.ts.

import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { SharedArray } from 'k6/data';
import { Trend, Counter, Rate } from 'k6/metrics';

/** The module's version. */
export const VERSION = '0.2.0';

/** The dialects a Client speaks and the endpoint path each uses by default. */
export const APIS = Object.freeze({
  'openai-chat': '/v1/chat/completions',
  'openai-completions': '/v1/completions',
  'anthropic-messages': '/v1/messages',
  'openai-responses': '/v1/responses',
  // {model} is the request's model; without alt=sse Google answers a JSON array.
  gemini: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
  cohere: '/v2/chat',
  ollama: '/api/chat',
});

/** The k6 metrics this module adds samples to (names are the contract with analyze). */
export const METRICS = Object.freeze({
  ttft: 'llm_ttft',
  ttftAnswer: 'llm_ttft_answer',
  tpot: 'llm_tpot',
  itl: 'llm_itl',
  itlMax: 'llm_itl_max',
  e2e: 'llm_e2e',
  ttftScheduled: 'llm_ttft_scheduled',
  e2eScheduled: 'llm_e2e_scheduled',
  outputTokens: 'llm_output_tokens',
  inputTokens: 'llm_input_tokens',
  requestsFailed: 'llm_requests_failed',
  sloMet: 'llm_slo_met',
  serverPrefill: 'llm_server_prefill',
  serverTPOT: 'llm_server_tpot',
  cachedInputTokens: 'llm_cached_input_tokens',
  clientLag: 'llm_client_lag',
  itlZeroGaps: 'llm_itl_zero_gaps',
  stageConnect: 'llm_stage_connect',
  stageSend: 'llm_stage_send',
  stageWait: 'llm_stage_wait',
  stageFirstEvent: 'llm_stage_first_event',
  stageFirstToken: 'llm_stage_first_token',
  cost: 'llm_cost',
  outputTokenMismatch: 'llm_output_token_mismatch',
});

/** The error kind of a request the helper refused or did not answer. */
export const HELPER_ERROR_KIND = 'helper';

/** The value of the `name` tag on the http_req_* samples of the hop to the helper. */
export const HELPER_REQUEST_NAME = 'llmstream-helper';

/** The metadata key that carries each request's id on its llm_* samples. */
export const REQUEST_ID_METADATA = 'llm_request_id';

const DEFAULT_TIMEOUT_MS = 120000;
const HOP_GRACE_MS = 5000;
const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
const DEFAULT_ANTHROPIC_MAX_TOKENS = 1024;

// Declared once per VU, at module load (k6's init context).
// The module's metrics, declared in the init context of every VU. The helper
// answers each request with its samples by metric name (metrics.FromRecord in
// Go, the one definition of a request's samples); the module adds them as they
// are. llm_slo_met is declared by the first Client with an slo.
const TIME_TRENDS = ['ttft', 'ttftAnswer', 'tpot', 'itl', 'itlMax', 'e2e', 'ttftScheduled', 'e2eScheduled', 'serverPrefill', 'serverTPOT', 'clientLag',
  'stageConnect', 'stageSend', 'stageWait', 'stageFirstEvent', 'stageFirstToken'];
const COUNTERS = ['outputTokens', 'inputTokens', 'cachedInputTokens', 'itlZeroGaps', 'cost'];
const metricByName = {};
for (const k of TIME_TRENDS) metricByName[METRICS[k]] = new Trend(METRICS[k], true);
for (const k of COUNTERS) metricByName[METRICS[k]] = new Counter(METRICS[k]);
metricByName[METRICS.requestsFailed] = new Rate(METRICS.requestsFailed);
metricByName[METRICS.outputTokenMismatch] = new Rate(METRICS.outputTokenMismatch);
let mSLO = null; // created by the first Client that has an slo (in the init context)

// The workload metrics: Dataset, Session, fixedOutputTokens, arrivals().
export const WORKLOAD_METRICS = Object.freeze({
  outputLengthMismatch: 'llm_output_length_mismatch',
  arrivalsDropped: 'llm_arrivals_dropped',
  arrivalLateness: 'llm_arrival_lateness',
});

/** The metadata key that carries a dataset entry's id on its request's llm_* samples. */
export const ENTRY_ID_METADATA = 'llm_entry_id';

metricByName[WORKLOAD_METRICS.outputLengthMismatch] = new Counter(WORKLOAD_METRICS.outputLengthMismatch);
const mDropped = new Counter(WORKLOAD_METRICS.arrivalsDropped);
const mLateness = new Trend(WORKLOAD_METRICS.arrivalLateness, true);

// The intended send time (unix ms) of the request that arrivals() or replay()
// is starting: set around their synchronous call of fn, read by _prepare.
let ambientScheduledMs = null;

let requestSeq = 0; // per VU: every runtime loads its own copy of this module

// A random prefix of this VU's request ids, so that ids are unique across
// runs, load generators (k6-operator instances number their VUs from 1 each)
// and helpers: analyze never joins requests of different runs.
const ID_PREFIX = randomPrefix();
function randomPrefix() {
  let out = '';
  while (out.length < 12) out += Math.floor(Math.random() * 2176782336).toString(36);
  return out.slice(0, 12);
}

const CLIENT_OPTIONS = [
  'baseURL', 'apiKey', 'model', 'api', 'path', 'helper', 'helperToken', 'headers',
  'body', 'tags', 'timeout', 'idleTimeout', 'includeUsage', 'keepText',
  'keepTimeline', 'itl', 'warmup', 'slo', 'anthropicVersion', 'stages', 'fixedOutputTokens', 'vllmExtras',
  'prices', 'tokenAudit',
];
const CALL_OPTIONS = ['tags', 'timeout', 'idleTimeout', 'headers', 'keepText', 'keepTimeline', 'scheduledAt'];
// The slo keys and the metric each limits (every sample ≤ the limit).
const SLO_METRICS = Object.freeze({
  ttft: 'llm_ttft', ttftAnswer: 'llm_ttft_answer', tpot: 'llm_tpot', e2e: 'llm_e2e', maxGap: 'llm_itl_max',
});
const SLO_KEYS = Object.keys(SLO_METRICS);
const PRICE_KEYS = ['input', 'output', 'cachedInput'];

/**
 * Client sends streaming chat requests through the helper and records their
 * timings as k6 metrics. Create Clients in the init context (top level of the
 * script): a Client with `slo` declares the llm_slo_met metric, which k6 allows
 * only there.
 */
export class Client {
  constructor(options) {
    const o = options === undefined ? {} : options;
    if (o === null || typeof o !== 'object' || Array.isArray(o)) {
      throw new TypeError('llmstream: new Client(options): options must be an object');
    }
    for (const k of Object.keys(o)) {
      if (CLIENT_OPTIONS.indexOf(k) < 0) {
        throw new TypeError(`llmstream: new Client: unknown option ${JSON.stringify(k)} (known: ${CLIENT_OPTIONS.join(', ')})`);
      }
    }

    this.api = o.api === undefined || o.api === null || o.api === '' ? 'openai-chat' : String(o.api);
    if (!Object.prototype.hasOwnProperty.call(APIS, this.api)) {
      throw new TypeError(`llmstream: new Client: unknown api ${JSON.stringify(this.api)} (use one of ${Object.keys(APIS).join(', ')})`);
    }
    if (typeof o.baseURL !== 'string' || o.baseURL === '') {
      throw new TypeError('llmstream: new Client: baseURL is required, e.g. baseURL: __ENV.LLM_BASE_URL (xk6-llmstream run sets it to the mock when no endpoint is given)');
    }
    if (!/^https?:\/\/[^/]/i.test(o.baseURL)) {
      throw new TypeError(`llmstream: new Client: baseURL ${JSON.stringify(o.baseURL)} must start with http:// or https://`);
    }
    if (o.path === undefined || o.path === null || o.path === '') checkBaseURL(o.baseURL);
    this.model = o.model === undefined || o.model === null ? '' : String(o.model);
    Object.defineProperty(this, '_urlTemplate', { value: endpointURL(o.baseURL, this.api, o.path), enumerable: false });
    this.url = modelURL(this._urlTemplate, this.model);
    Object.defineProperty(this, '_baseURL', { value: String(o.baseURL).replace(/\/+$/, ''), enumerable: false });

    const env = typeof __ENV === 'object' && __ENV !== null ? __ENV : {};
    const helper = o.helper || env.LLMSTREAM_HELPER || '';
    if (!helper) {
      throw new Error('llmstream: new Client: no helper URL. Run the script with `xk6-llmstream run script.js` ' +
        '(it starts the helper and sets LLMSTREAM_HELPER), or start `xk6-llmstream helper` yourself and pass ' +
        'its URL as -e LLMSTREAM_HELPER=http://127.0.0.1:PORT or the Client option helper');
    }
    if (!/^https?:\/\/[^/]/i.test(helper)) {
      throw new TypeError(`llmstream: new Client: helper URL ${JSON.stringify(helper)} must start with http:// or https://`);
    }
    this.helperURL = helper.replace(/\/+$/, '') + '/v1/stream';
    const token = o.helperToken || env.LLMSTREAM_HELPER_TOKEN || '';

    this.timeoutMs = o.timeout === undefined ? DEFAULT_TIMEOUT_MS : durationMs(o.timeout, 'timeout');
    if (!(this.timeoutMs > 0)) {
      throw new TypeError('llmstream: new Client: timeout must be greater than zero');
    }
    this.idleTimeoutMs = o.idleTimeout === undefined ? null : durationMs(o.idleTimeout, 'idleTimeout');
    if (this.idleTimeoutMs !== null && !(this.idleTimeoutMs > 0)) {
      throw new TypeError('llmstream: new Client: idleTimeout must be greater than zero');
    }
    this.includeUsage = o.includeUsage === undefined ? true : Boolean(o.includeUsage);
    this.keepText = Boolean(o.keepText);
    this.keepTimeline = Boolean(o.keepTimeline);
    this.tags = stringTags(o.tags, 'tags');
    this.body = plainObject(o.body, 'body');
    this.itl = itlOption(o.itl);
    this.stages = Boolean(o.stages);
    this.warmup = o.warmup === undefined ? 0 : Number(o.warmup);
    if (!Number.isInteger(this.warmup) || this.warmup < 0) {
      throw new TypeError(`llmstream: new Client: warmup must be a whole number ≥ 0, got ${JSON.stringify(o.warmup)}`);
    }
    this.slo = sloOption(o.slo);
    this.prices = pricesOption(o.prices);
    // The token audit: the helper counts the streamed text with this
    // tokenizer and compares it with the server's usage (it validates).
    this.tokenAudit = o.tokenAudit === undefined || o.tokenAudit === null ? null : plainObject(o.tokenAudit, 'tokenAudit');
    if (this.slo !== null && mSLO === null) {
      try {
        mSLO = new Rate(METRICS.sloMet);
        metricByName[METRICS.sloMet] = mSLO;
      } catch (e) {
        throw new Error(`llmstream: a Client with slo must be created in the init context (the top level of the script), because it declares the ${METRICS.sloMet} metric: ${e}`);
      }
    }

    // Upstream headers: authentication first, then the script's own headers.
    // The key lives only here and in what is sent to the helper.
    const upstream = {};
    const key = o.apiKey === undefined || o.apiKey === null ? '' : String(o.apiKey);
    if (this.api === 'anthropic-messages') {
      if (key) upstream['x-api-key'] = key;
      upstream['anthropic-version'] = o.anthropicVersion ? String(o.anthropicVersion) : DEFAULT_ANTHROPIC_VERSION;
    } else if (this.api === 'gemini') {
      if (key) upstream['x-goog-api-key'] = key;
    } else if (key) {
      upstream['Authorization'] = 'Bearer ' + key;
    }
    Object.assign(upstream, stringTags(o.headers, 'headers'));
    // Not enumerable, so neither JSON.stringify(client) nor console.log(client) shows a key.
    Object.defineProperty(this, '_headers', { value: upstream, enumerable: false });
    const hop = { 'Content-Type': 'application/json' };
    if (token) hop['Authorization'] = 'Bearer ' + token;
    Object.defineProperty(this, '_hopHeaders', { value: hop, enumerable: false });

    Object.assign(this, workloadOptions(o, this.api));
    this._started = 0; // requests started by this Client in this VU (for warmup)
    // What shapes each request's samples, sent with every request.
    Object.defineProperty(this, '_samples', { value: sampleOptions(this), enumerable: false });
  }

  /**
   * Sends one streaming request and blocks until the stream ends. `params` is the
   * API's request body (messages, max_tokens, ...; `model` defaults to the
   * Client's), or a string used as the single user message (the prompt for
   * openai-completions). Returns the result; never throws for a failed request.
   */
  chat(params, callOptions) {
    const req = this._prepare(params, callOptions);
    let res;
    try {
      res = http.post(this.helperURL, req.payload, req.httpParams);
    } catch (e) {
      return this._finish(req, hopFailure(`request to the helper failed: ${e}`));
    }
    return this._finish(req, readHelperAnswer(res));
  }

  /**
   * Like chat(), but returns a Promise of the result, so one VU can hold several
   * streams at once (await them, or use Promise.all). Uses http.asyncRequest.
   */
  asyncChat(params, callOptions) {
    let req;
    try {
      req = this._prepare(params, callOptions);
    } catch (e) {
      return Promise.reject(e);
    }
    let p;
    try {
      p = http.asyncRequest('POST', this.helperURL, req.payload, req.httpParams);
    } catch (e) {
      return Promise.resolve(this._finish(req, hopFailure(`request to the helper failed: ${e}`)));
    }
    return p.then(
      (res) => this._finish(req, readHelperAnswer(res)),
      (e) => this._finish(req, hopFailure(`request to the helper failed: ${e}`)),
    );
  }

  /** The upstream endpoint this Client streams from (no credentials in it). */
  get endpoint() {
    return this.url;
  }

  _prepare(params, callOptions) {
    const co = callOptions === undefined || callOptions === null ? {} : callOptions;
    if (typeof co !== 'object' || Array.isArray(co)) {
      throw new TypeError('llmstream: chat(params, options): options must be an object');
    }
    for (const k of Object.keys(co)) {
      if (CALL_OPTIONS.indexOf(k) < 0) {
        throw new TypeError(`llmstream: chat: unknown option ${JSON.stringify(k)} (known: ${CALL_OPTIONS.join(', ')})`);
      }
    }
    const entry = isEntry(params) ? params : null;
    const plain = this._body(entry !== null ? entryBody(entry, this.api) : params);
    if (entry === null) warnUnknownFields(plain);
    const expected = this._fixLength(plain, entry);
    const model = typeof plain.model === 'string' ? plain.model : '';
    const body = dialectBody(this.api, plain);
    const timeoutMs = co.timeout === undefined ? this.timeoutMs : durationMs(co.timeout, 'timeout');
    if (!(timeoutMs > 0)) {
      throw new TypeError('llmstream: chat: timeout must be greater than zero');
    }
    const idleMs = co.idleTimeout === undefined ? this.idleTimeoutMs : durationMs(co.idleTimeout, 'idleTimeout');
    if (idleMs !== null && !(idleMs > 0)) {
      throw new TypeError('llmstream: chat: idleTimeout must be greater than zero');
    }
    const keepText = co.keepText === undefined ? this.keepText : Boolean(co.keepText);
    const keepTimeline = co.keepTimeline === undefined ? this.keepTimeline : Boolean(co.keepTimeline);
    const headers = Object.assign({}, this._headers, stringTags(co.headers, 'headers'));
    const scheduledMs = co.scheduledAt === undefined ? ambientScheduledMs : co.scheduledAt;
    if (scheduledMs !== null && !(typeof scheduledMs === 'number' && scheduledMs > 0 && isFinite(scheduledMs))) {
      throw new TypeError(`llmstream: chat: scheduledAt must be the intended send time in unix ms (a number > 0), got ${JSON.stringify(co.scheduledAt)}`);
    }

    requestSeq++;
    this._started++;
    const id = ID_PREFIX + '-' + vuID() + '-' + requestSeq;
    const tags = Object.assign({}, this.tags, entry !== null ? stringTags(entry.tags, 'entry.tags') : {}, stringTags(co.tags, 'tags'));
    const warmup = this._started <= this.warmup;
    const wire = {
      url: modelURL(this._urlTemplate, model),
      api: this.api,
      headers: headers,
      body: body,
      include_usage: this.includeUsage,
      timeout_ms: timeoutMs,
      keep_text: keepText,
      keep_timeline: keepTimeline,
      samples: expected === null ? this._samples : Object.assign({ expect_output_tokens: expected }, this._samples),
      id: id,
      module_version: VERSION, // the helper refuses another release's module
    };
    if (idleMs !== null) wire.idle_timeout_ms = idleMs;
    if (this.tokenAudit !== null) wire.token_audit = this.tokenAudit;
    // For the helper's records (--records) only.
    for (const k in tags) {
      wire.tags = tags;
      break;
    }
    if (warmup) wire.warmup = true;
    // Open-loop load: the intended send time (llm_ttft_scheduled, llm_e2e_scheduled).
    if (scheduledMs !== null) wire.scheduled_unix_ns = Math.round(scheduledMs * 1e6);

    return {
      payload: JSON.stringify(wire),
      httpParams: {
        headers: this._hopHeaders,
        tags: { name: HELPER_REQUEST_NAME },
        timeout: Math.ceil(timeoutMs + Math.max(HOP_GRACE_MS, timeoutMs / 10)),
      },
      model: model,
      tags: tags,
      entryID: entry !== null && entry.id !== undefined ? String(entry.id) : '',
      expectedOutput: expected,
      keepText: keepText,
      keepTimeline: keepTimeline,
      warmup: warmup,
      id: id,
    };
  }

  _body(params) {
    let p = params;
    if (typeof p === 'string') {
      p = this.api === 'openai-completions' ? { prompt: p } : { messages: [{ role: 'user', content: p }] };
    }
    if (p === null || typeof p !== 'object' || Array.isArray(p)) {
      throw new TypeError('llmstream: chat(params): params must be the request body object or a prompt string');
    }
    const body = Object.assign({}, this.body, p);
    if (body.model === undefined && this.model) body.model = this.model;
    if (this.api === 'anthropic-messages' && body.max_tokens === undefined) {
      body.max_tokens = DEFAULT_ANTHROPIC_MAX_TOKENS;
    }
    return body;
  }

  _finish(req, answer) {
    const raw = answer.raw;
    const err = answer.error;
    const samples = answer.samples !== null ? answer.samples : failureSamples(this);
    const r = {
      ok: err === null,
      status: answer.status,
      error: err,
      errorKind: err === null ? '' : err.kind,
      model: (raw && typeof raw.model === 'string' && raw.model) || req.model,
      api: (raw && typeof raw.api === 'string' && raw.api) || this.api,
      ttft: firstSample(samples, METRICS.ttft),
      ttftAnswer: firstSample(samples, METRICS.ttftAnswer),
      tpot: firstSample(samples, METRICS.tpot),
      e2e: firstSample(samples, METRICS.e2e),
      itlMax: firstSample(samples, METRICS.itlMax),
      itl: allSamples(samples, METRICS.itl),
      outputTokens: countOf(raw, 'output_tokens'),
      inputTokens: countOf(raw, 'input_tokens'),
      reasoningTokens: countOf(raw, 'reasoning_tokens'),
      cachedInputTokens: countOf(raw, 'cached_input_tokens'),
      serverTimings: serverTimingsOf(raw),
      tokenSource: raw && typeof raw.token_source === 'string' ? raw.token_source : '',
      finishReason: raw && typeof raw.finish_reason === 'string' ? raw.finish_reason : '',
      warmup: req.warmup,
      requestId: req.id,
      raw: raw,
    };
    if (req.keepText) {
      r.text = raw && typeof raw.text === 'string' ? raw.text : '';
      r.reasoning = raw && typeof raw.reasoning === 'string' ? raw.reasoning : '';
      r.textTruncated = Boolean(raw && raw.text_truncated);
    }
    if (req.keepTimeline) {
      r.timeline = raw && Array.isArray(raw.timeline) ? raw.timeline : [];
    }
    const met = firstSample(samples, METRICS.sloMet);
    r.sloMet = this.slo === null ? null : met === 1;
    r.cost = this.prices === null ? null : firstSample(samples, METRICS.cost);
    r.entryId = req.entryID;
    r.expectedOutputTokens = req.expectedOutput;
    r.outputLengthMismatch = firstSample(samples, WORKLOAD_METRICS.outputLengthMismatch) === 1;
    if (!r.warmup) this._record(req, r, samples, answer.tags);
    return r;
  }

  _record(req, r, samples, moduleTags) {
    // Client tags and per-call tags first; the module's own tags win, because
    // they are the contract analyze and thresholds rely on.
    const tags = Object.assign({}, req.tags, moduleTags || {
      model: r.model,
      api: r.api,
      status: String(r.status),
      error: r.errorKind,
      token_source: r.tokenSource,
    });
    withMetadata(req.id, req.entryID, () => addSamples(samples, tags));
  }

  // With fixedOutputTokens, sets the dialect's knobs so that the server
  // generates exactly the expected number of tokens, and returns that number
  // (null when there is none to ask for).
  _fixLength(body, entry) {
    const f = this.fixedOutput;
    if (f === null) return null;
    let n = f.tokens;
    if (n === null && entry !== null && positiveInt(entry.output_tokens)) n = entry.output_tokens;
    if (n === null && positiveInt(body.max_completion_tokens)) n = body.max_completion_tokens;
    if (n === null && positiveInt(body.max_tokens)) n = body.max_tokens;
    if (n === null) return null;
    if (this.api === 'openai-chat' && body.max_completion_tokens !== undefined) body.max_completion_tokens = n;
    else body.max_tokens = n;
    if (f.extras && this.vllmExtras) {
      body.ignore_eos = true;
      body.min_tokens = n;
    }
    return n;
  }
}

// ---- Embeddings and rerank (docs/embeddings.md) ----------------------------
// Non-streaming calls through the same helper: it times the call, reads the
// input tokens the server reported and the batch, and answers with the
// llm_embed_* or llm_rerank_* samples (metrics.FromRecord), never
// generation's.

/** The embeddings and rerank APIs and the endpoint path each uses by default. */
export const CALL_APIS = Object.freeze({
  'openai-embeddings': '/v1/embeddings',
  'cohere-embed': '/v2/embed',
  'cohere-rerank': '/v2/rerank',
  // vLLM (/v1/rerank, also /rerank) and Hugging Face TEI (/rerank, with tei: true).
  rerank: '/v1/rerank',
});

/** The k6 metrics of embeddings and rerank calls. */
export const CALL_METRICS = Object.freeze({
  embedDuration: 'llm_embed_duration',
  embedInputTokens: 'llm_embed_input_tokens',
  embedBatchSize: 'llm_embed_batch_size',
  embedFailed: 'llm_embed_failed',
  rerankDuration: 'llm_rerank_duration',
  rerankInputTokens: 'llm_rerank_input_tokens',
  rerankDocuments: 'llm_rerank_documents',
  rerankFailed: 'llm_rerank_failed',
});
metricByName[CALL_METRICS.embedDuration] = new Trend(CALL_METRICS.embedDuration, true);
metricByName[CALL_METRICS.embedInputTokens] = new Counter(CALL_METRICS.embedInputTokens);
metricByName[CALL_METRICS.embedBatchSize] = new Trend(CALL_METRICS.embedBatchSize);
metricByName[CALL_METRICS.embedFailed] = new Rate(CALL_METRICS.embedFailed);
metricByName[CALL_METRICS.rerankDuration] = new Trend(CALL_METRICS.rerankDuration, true);
metricByName[CALL_METRICS.rerankInputTokens] = new Counter(CALL_METRICS.rerankInputTokens);
metricByName[CALL_METRICS.rerankDocuments] = new Trend(CALL_METRICS.rerankDocuments);
metricByName[CALL_METRICS.rerankFailed] = new Rate(CALL_METRICS.rerankFailed);

const EMBED_CALL_OPTIONS = ['api', 'path', 'tei', 'tags', 'timeout', 'headers'];

/**
 * Embeds a batch: `params` is `{ input: string | string[], model?, ... }` (or
 * the input itself). The API is the call option `api` ('openai-embeddings'
 * or 'cohere-embed'), by default the Client's family (cohere → cohere-embed).
 * Blocks until the answer; never throws for a failed call.
 */
Client.prototype.embed = function (params, callOptions) {
  return this._call('embed', params, callOptions);
};

/**
 * Ranks `documents` against `query`: `params` is `{ query, documents,
 * topN?, model?, ... }`. The API is the call option `api` ('cohere-rerank'
 * or 'rerank' for vLLM and TEI; with `tei: true` the body is TEI's
 * {query, texts} and the path /rerank).
 */
Client.prototype.rerank = function (params, callOptions) {
  return this._call('rerank', params, callOptions);
};

Client.prototype._call = function (kind, params, callOptions) {
  const co = callOptions === undefined || callOptions === null ? {} : callOptions;
  if (typeof co !== 'object' || Array.isArray(co)) {
    throw new TypeError(`llmstream: ${kind}(params, options): options must be an object`);
  }
  for (const k of Object.keys(co)) {
    if (EMBED_CALL_OPTIONS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: ${kind}: unknown option ${JSON.stringify(k)} (known: ${EMBED_CALL_OPTIONS.join(', ')})`);
    }
  }
  const cohere = this.api === 'cohere';
  const api = co.api !== undefined ? String(co.api) : kind === 'embed' ? (cohere ? 'cohere-embed' : 'openai-embeddings') : (cohere ? 'cohere-rerank' : 'rerank');
  if (!Object.prototype.hasOwnProperty.call(CALL_APIS, api) || (api.indexOf('rerank') >= 0) !== (kind === 'rerank')) {
    const fit = Object.keys(CALL_APIS).filter((a) => (a.indexOf('rerank') >= 0) === (kind === 'rerank'));
    throw new TypeError(`llmstream: ${kind}: unknown api ${JSON.stringify(api)} (use one of ${fit.join(', ')})`);
  }
  const tei = Boolean(co.tei);
  if (tei && api !== 'rerank') {
    throw new TypeError(`llmstream: ${kind}: tei: true is for api 'rerank' (Hugging Face TEI's /rerank)`);
  }
  const body = callBody(kind, api, tei, params, this.model);
  const path = co.path !== undefined ? String(co.path) : tei ? '/rerank' : CALL_APIS[api];
  const base = this._baseURL;
  const url = /\/v1$/.test(base) && path.indexOf('/v1/') === 0 ? base + path.slice(3) : base + (path.charAt(0) === '/' ? path : '/' + path);
  const timeoutMs = co.timeout === undefined ? this.timeoutMs : durationMs(co.timeout, 'timeout');
  if (!(timeoutMs > 0)) {
    throw new TypeError(`llmstream: ${kind}: timeout must be greater than zero`);
  }
  requestSeq++;
  this._started++;
  const id = ID_PREFIX + '-' + vuID() + '-' + requestSeq;
  const tags = Object.assign({}, this.tags, stringTags(co.tags, 'tags'));
  const warmup = this._started <= this.warmup;
  const wire = {
    url: url,
    api: api,
    headers: Object.assign({}, this._headers, stringTags(co.headers, 'headers')),
    body: body,
    timeout_ms: timeoutMs,
    id: id,
    module_version: VERSION,
  };
  for (const k in tags) {
    wire.tags = tags;
    break;
  }
  if (warmup) wire.warmup = true;
  let answer;
  try {
    answer = readHelperAnswer(http.post(this.helperURL, JSON.stringify(wire), {
      headers: this._hopHeaders,
      tags: { name: HELPER_REQUEST_NAME },
      timeout: Math.ceil(timeoutMs + Math.max(HOP_GRACE_MS, timeoutMs / 10)),
    }));
  } catch (e) {
    answer = hopFailure(`request to the helper failed: ${e}`);
  }
  const m = kind === 'embed'
    ? { duration: CALL_METRICS.embedDuration, tokens: CALL_METRICS.embedInputTokens, failed: CALL_METRICS.embedFailed }
    : { duration: CALL_METRICS.rerankDuration, tokens: CALL_METRICS.rerankInputTokens, failed: CALL_METRICS.rerankFailed };
  const raw = answer.raw;
  const err = answer.error;
  const samples = answer.samples !== null ? answer.samples : [{ metric: m.failed, values: [1] }];
  const r = {
    ok: err === null,
    status: answer.status,
    error: err,
    errorKind: err === null ? '' : err.kind,
    kind: kind,
    api: api,
    model: (raw && typeof raw.model === 'string' && raw.model) || (typeof body.model === 'string' ? body.model : ''),
    duration: firstSample(samples, m.duration),
    inputTokens: countOf(raw, 'input_tokens'),
    tokenSource: raw && typeof raw.token_source === 'string' ? raw.token_source : '',
    batch: countOf(raw, 'batch'),
    results: countOf(raw, 'results'),
    warmup: warmup,
    requestId: id,
    raw: raw,
  };
  if (!warmup) {
    const moduleTags = answer.tags || { model: r.model, api: api, status: String(r.status), error: r.errorKind, token_source: r.tokenSource };
    withMetadata(id, '', () => addSamples(samples, Object.assign({}, tags, moduleTags)));
  }
  return r;
};

// callBody is an embeddings or rerank request body in the API's shape (the
// providers' documented requests); fields the script adds pass through.
function callBody(kind, api, tei, params, model) {
  let p = params;
  if (kind === 'embed' && (typeof p === 'string' || Array.isArray(p))) p = { input: p };
  if (p === null || typeof p !== 'object' || Array.isArray(p)) {
    throw new TypeError(`llmstream: ${kind}(params): params must be an object`);
  }
  const b = Object.assign({}, p);
  if (!tei && b.model === undefined && model) b.model = model;
  if (kind === 'embed') {
    if (typeof b.input !== 'string' && !(Array.isArray(b.input) && b.input.length > 0)) {
      throw new TypeError('llmstream: embed: params.input must be a string or a non-empty array of strings');
    }
    if (api === 'cohere-embed') {
      b.texts = typeof b.input === 'string' ? [b.input] : b.input;
      delete b.input;
      if (b.input_type === undefined) b.input_type = 'search_document';
      if (b.embedding_types === undefined) b.embedding_types = ['float'];
    }
    return b;
  }
  if (typeof b.query !== 'string' || !Array.isArray(b.documents) || b.documents.length === 0) {
    throw new TypeError('llmstream: rerank: params must have a query string and a non-empty documents array');
  }
  if (b.topN !== undefined) {
    b.top_n = b.topN;
    delete b.topN;
  }
  if (tei) {
    b.texts = b.documents;
    delete b.documents;
    delete b.top_n;
  }
  return b;
}
// ---- end of embeddings and rerank -------------------------------------------

// pricesOption validates the Client's prices: currency units per million
// tokens for input, output and cached input (which defaults to input). A
// missing input or output price is 0. Returns null without prices.
function pricesOption(v) {
  if (v === undefined || v === null) return null;
  const example = '{ input: 0.15, output: 0.60, cachedInput: 0.075 } (currency units per million tokens)';
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError(`llmstream: new Client: prices must be an object such as ${example}`);
  }
  const keys = Object.keys(v);
  if (keys.length === 0) {
    throw new TypeError(`llmstream: new Client: prices has no price: give e.g. ${example}`);
  }
  for (const k of keys) {
    if (PRICE_KEYS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: new Client: prices: unknown key ${JSON.stringify(k)} (known: ${PRICE_KEYS.join(', ')})`);
    }
    const n = v[k];
    if (typeof n !== 'number' || !isFinite(n) || n < 0) {
      throw new TypeError(`llmstream: new Client: prices.${k} must be a finite number ≥ 0 (currency units per million tokens), got ${typeof n === 'number' ? String(n) : JSON.stringify(n)}`);
    }
  }
  const input = v.input === undefined ? 0 : v.input;
  return Object.freeze({
    input: input,
    output: v.output === undefined ? 0 : v.output,
    cachedInput: v.cachedInput === undefined ? input : v.cachedInput,
  });
}

/**
 * Parses a k6-style duration ('250ms', '2s', '1m30s', '1.5h', '100us') or a number
 * of milliseconds, and returns milliseconds. `what` names the option in errors.
 */
export function durationMs(value, what) {
  const name = what || 'duration';
  if (typeof value === 'number') {
    if (!isFinite(value) || value < 0) {
      throw new TypeError(`llmstream: ${name}: ${value} is not a duration (a number of milliseconds ≥ 0 or a string like '2s')`);
    }
    return value;
  }
  if (typeof value !== 'string') {
    throw new TypeError(`llmstream: ${name}: ${JSON.stringify(value)} is not a duration (a number of milliseconds or a string like '2s')`);
  }
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const unit = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 };
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/g;
  let total = 0;
  let consumed = 0;
  let m;
  while ((m = re.exec(s)) !== null) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * unit[m[2]];
    consumed = re.lastIndex;
  }
  if (s === '' || consumed !== s.length) {
    throw new TypeError(`llmstream: ${name}: ${JSON.stringify(value)} is not a duration (use e.g. '500ms', '2s', '1m30s' or a number of milliseconds)`);
  }
  return total;
}

/**
 * Joins a base URL and the dialect's default path. A base URL that already ends
 * in /v1 (as OpenAI SDKs expect) does not get a second /v1. An explicit `path` is
 * appended to the base URL as given.
 */
export function endpointURL(baseURL, api, path) {
  const base = String(baseURL).replace(/\/+$/, '');
  if (path !== undefined && path !== null && path !== '') {
    const p = String(path);
    return base + (p.charAt(0) === '/' || p.charAt(0) === '?' ? p : '/' + p);
  }
  const def = APIS[api];
  if (def === undefined) {
    throw new TypeError(`llmstream: unknown api ${JSON.stringify(api)}`);
  }
  if (/\/v1$/.test(base) && def.indexOf('/v1/') === 0) return base + def.slice(3);
  return base + def;
}

// The request paths of the APIs (APIS' paths after /v1), which a base URL
// must not end in: the Client adds them.
const ENDPOINT_PATHS = ['/chat/completions', '/completions', '/messages', '/responses', '/v2/chat', '/api/chat', '/api/generate'];

// checkBaseURL refuses a base URL that ends in an endpoint path
// (…/v1/chat/completions), naming the base URL to give instead. The URL is
// shown without user info, query or fragment, which may hold a key.
function checkBaseURL(baseURL) {
  const m = /^(https?:\/\/)(?:[^@/?#]*@)?([^/?#]*)([^?#]*)/i.exec(String(baseURL));
  if (m === null) return;
  const path = m[3].replace(/\/+$/, '');
  for (const p of ENDPOINT_PATHS) {
    if (path.length >= p.length && path.slice(path.length - p.length) === p) {
      throw new TypeError(`llmstream: new Client: baseURL ${m[1]}${m[2]}${m[3]} ends in the endpoint path ${p}: ` +
        `give the base URL, ${m[1]}${m[2]}${path.slice(0, path.length - p.length)} (the Client adds the API's path; ` +
        'or set the option path to the whole path)');
    }
  }
}

// The top-level request body fields some API the module speaks takes: the
// OpenAI chat, completions and responses APIs, Anthropic messages, Gemini,
// Cohere v2 chat, Ollama, and the extras of OpenAI-compatible servers (vLLM,
// SGLang, llama.cpp). A chat() body field outside all of them is most likely
// a typo: warnUnknownFields says so (it is still sent).
const KNOWN_FIELDS = new Set([
  // OpenAI chat completions / completions
  'model', 'messages', 'prompt', 'suffix', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n',
  'stream', 'stream_options', 'stop', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs',
  'top_logprobs', 'user', 'seed', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format',
  'reasoning_effort', 'modalities', 'audio', 'prediction', 'service_tier', 'store', 'metadata', 'functions',
  'function_call', 'web_search_options', 'verbosity', 'prompt_cache_key', 'safety_identifier', 'echo', 'best_of',
  // OpenAI responses
  'input', 'instructions', 'max_output_tokens', 'previous_response_id', 'reasoning', 'text', 'truncation',
  'include', 'background', 'max_tool_calls', 'conversation',
  // Anthropic messages
  'system', 'stop_sequences', 'top_k', 'thinking', 'container', 'mcp_servers',
  // Gemini
  'contents', 'systemInstruction', 'generationConfig', 'safetySettings', 'toolConfig', 'cachedContent',
  // Cohere v2 chat
  'documents', 'citation_options', 'safety_mode', 'k', 'p', 'strict_tools',
  // Ollama
  'format', 'options', 'keep_alive', 'think', 'images',
  // vLLM, SGLang, llama.cpp extras
  'min_p', 'repetition_penalty', 'ignore_eos', 'min_tokens', 'use_beam_search', 'length_penalty',
  'stop_token_ids', 'skip_special_tokens', 'spaces_between_special_tokens', 'include_stop_str_in_output',
  'chat_template', 'chat_template_kwargs', 'add_generation_prompt', 'continue_final_message',
  'add_special_tokens', 'guided_json', 'guided_regex', 'guided_choice', 'guided_grammar',
  'guided_decoding_backend', 'structured_outputs', 'priority', 'request_id', 'truncate_prompt_tokens',
  'return_tokens_as_token_ids', 'mm_processor_kwargs', 'cache_salt', 'kv_transfer_params', 'vllm_xargs',
  'regex', 'ebnf', 'json_schema', 'lora_path', 'separate_reasoning', 'stream_reasoning', 'return_hidden_states',
  'cache_prompt', 'n_predict', 'n_probs', 'id_slot', 'grammar', 'typical_p', 'mirostat',
]);
const warnedFields = {}; // per VU: every runtime loads its own copy of this module

// warnUnknownFields warns once per key per VU about body fields no API
// takes, naming the nearest known field when it is a near miss.
function warnUnknownFields(body) {
  for (const k of Object.keys(body)) {
    if (KNOWN_FIELDS.has(k) || warnedFields[k]) continue;
    warnedFields[k] = true;
    const near = nearestField(k);
    console.warn(`llmstream: chat: unknown request field ${k}${near ? ` (did you mean ${near}?)` : ''}: ` +
      'no API the module speaks takes it; it is sent as given');
  }
}

// nearestField is the known field at most 2 edits from k (and fewer edits
// than k has characters), the nearest first; '' when none is.
function nearestField(k) {
  let best = '';
  let bestD = 3;
  for (const f of KNOWN_FIELDS) {
    if (f.length < 3) continue;
    const d = editDistance(k, f, bestD);
    if (d < bestD && d < k.length) {
      best = f;
      bestD = d;
    }
  }
  return best;
}

// editDistance is the Levenshtein distance of a and b, or at least limit
// when it is limit or more.
function editDistance(a, b, limit) {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let prev = [];
  for (let j = 0; j <= b.length; j++) prev.push(j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = cur;
  }
  return prev[b.length];
}

// modelURL puts the model into a path with {model} (Gemini's), escaped.
function modelURL(template, model) {
  return template.indexOf('{model}') < 0 ? template : template.replace('{model}', encodeURIComponent(model));
}

/**
 * Turns a chat() body (OpenAI chat shape: messages, max_tokens, ...) into the
 * request body of dialect api. A body already in the dialect's own shape
 * (input, contents, ...) is left as it is; the dialect's own fields win.
 */
export function dialectBody(api, body) {
  const b = Object.assign({}, body);
  const move = (from, to) => {
    if (b[from] !== undefined && b[to] === undefined) b[to] = b[from];
    delete b[from];
  };
  switch (api) {
    case 'openai-responses':
      move('messages', 'input');
      move('max_tokens', 'max_output_tokens');
      break;
    case 'gemini':
      return geminiBody(b);
    case 'ollama':
      if (b.max_tokens !== undefined) {
        b.options = Object.assign({ num_predict: b.max_tokens }, b.options);
        delete b.max_tokens;
      }
      break;
  }
  return b;
}

// geminiBody maps messages to contents (assistant → model) and system
// messages to systemInstruction, max_tokens, temperature and top_p to
// generationConfig; the model goes into the URL, not the body.
function geminiBody(b) {
  delete b.model;
  if (Array.isArray(b.messages) && b.contents === undefined) {
    const system = [];
    b.contents = [];
    for (const m of b.messages) {
      const parts = geminiParts(m && m.content);
      if (m && (m.role === 'system' || m.role === 'developer')) system.push(...parts);
      else b.contents.push({ role: m && m.role === 'assistant' ? 'model' : 'user', parts: parts });
    }
    if (system.length > 0 && b.systemInstruction === undefined) b.systemInstruction = { parts: system };
  }
  delete b.messages;
  const gc = {};
  const fields = { max_tokens: 'maxOutputTokens', temperature: 'temperature', top_p: 'topP' };
  for (const k of Object.keys(fields)) {
    if (b[k] !== undefined) gc[fields[k]] = b[k];
    delete b[k];
  }
  if (Object.keys(gc).length > 0) b.generationConfig = Object.assign(gc, b.generationConfig);
  return b;
}

// geminiParts is a chat message content (a string or text parts) as parts.
function geminiParts(content) {
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter((p) => p && typeof p.text === 'string').map((p) => ({ text: p.text }));
}

// serverTimingsOf is the server's own timings of an answer, null when none.
function serverTimingsOf(raw) {
  const sv = raw === null || raw === undefined ? null : raw.server;
  if (sv === null || sv === undefined || typeof sv !== 'object') return null;
  return {
    prefill: msOrNull(sv, 'prefill_ms'),
    decode: msOrNull(sv, 'decode_ms'),
    tpot: msOrNull(sv, 'tpot_ms'),
    promptTokens: countOf(sv, 'prompt_tokens'),
    outputTokens: countOf(sv, 'output_tokens'),
  };
}

function itlOption(v) {
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

function sloOption(v) {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError("llmstream: new Client: slo must be an object like { ttft: '2s', tpot: '50ms', maxGap: '500ms' }");
  }
  const out = {};
  let n = 0;
  for (const k of Object.keys(v)) {
    if (SLO_KEYS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: new Client: slo: unknown limit ${JSON.stringify(k)} (known: ${SLO_KEYS.join(', ')})`);
    }
    out[k] = durationMs(v[k], 'slo.' + k);
    n++;
  }
  if (n === 0) {
    throw new TypeError("llmstream: new Client: slo has no limits; give at least one, e.g. { ttft: '2s' }");
  }
  return out;
}

// sampleOptions are what shapes a Client's samples, as the helper takes them
// (helper.SampleOptions): the itl mode, stages, the slo's limits, the prices.
function sampleOptions(c) {
  const o = { itl: c.itl.mode };
  if (c.itl.mode === 'fraction') o.fraction = c.itl.fraction;
  if (c.stages) o.stages = true;
  if (c.slo !== null) {
    o.slo = { limits: Object.keys(c.slo).map((k) => ({ metric: SLO_METRICS[k], op: '<=', value: c.slo[k] })) };
  }
  if (c.prices !== null) {
    o.prices = { input: c.prices.input, output: c.prices.output, cached_input: c.prices.cachedInput };
  }
  return o;
}

// addSamples adds a request's samples ([{metric, values}], as the helper
// answers them) with tags; a metric this module does not declare is skipped.
function addSamples(samples, tags) {
  for (let i = 0; i < samples.length; i++) {
    const m = metricByName[samples[i].metric];
    if (m === undefined) continue;
    const v = samples[i].values;
    for (let j = 0; j < v.length; j++) m.add(v[j], tags);
  }
}

// firstSample is a request's first sample of a metric, null when none.
function firstSample(samples, metric) {
  for (let i = 0; i < samples.length; i++) {
    if (samples[i].metric === metric) return samples[i].values.length > 0 ? samples[i].values[0] : null;
  }
  return null;
}

// allSamples is a request's samples of a metric ([] when none).
function allSamples(samples, metric) {
  for (let i = 0; i < samples.length; i++) {
    if (samples[i].metric === metric) return samples[i].values;
  }
  return [];
}

// failureSamples are the samples of a request the helper did not answer for
// (unreachable, or it refused the request): what metrics.FromRecord makes of a
// record with only an error (a test holds the two together).
function failureSamples(c) {
  const out = [];
  if (c.itl.mode === 'all' || c.itl.mode === 'fraction') out.push({ metric: METRICS.itlZeroGaps, values: [0] });
  out.push({ metric: METRICS.outputTokens, values: [0] }, { metric: METRICS.inputTokens, values: [0] },
    { metric: METRICS.requestsFailed, values: [1] });
  if (c.slo !== null) out.push({ metric: METRICS.sloMet, values: [0] });
  if (c.prices !== null) out.push({ metric: METRICS.cost, values: [0] });
  return out;
}

function readHelperAnswer(res) {
  if (res === null || res === undefined) {
    return hopFailure('no answer from the helper');
  }
  const status = res.status;
  if (status !== 200) {
    // A failed LLM request is answered with its record and a status that
    // reflects the failure (so http_req_failed follows llm_requests_failed);
    // a record has a boolean "ok", a refusal by the helper has none.
    const record = parseRecord(res.body);
    if (record !== null) return fromRecord(record);
    if (!status) {
      return hopFailure(`the helper did not answer: ${res.error || 'no response'}` +
        (res.error_code ? ` (k6 error code ${res.error_code})` : '') +
        '; is `xk6-llmstream helper` running at LLMSTREAM_HELPER?');
    }
    let detail = '';
    let raw = null;
    try {
      raw = JSON.parse(res.body);
      if (raw && raw.error && typeof raw.error === 'object') {
        detail = `${raw.error.kind || 'error'}: ${raw.error.message || ''}`;
      }
    } catch (e) {
      raw = null;
    }
    if (!detail) detail = truncate(typeof res.body === 'string' ? res.body : '', 200);
    return { status: 0, error: { kind: HELPER_ERROR_KIND, message: `helper answered ${status}: ${detail}` }, raw: raw, samples: null, tags: null };
  }
  let raw;
  try {
    raw = JSON.parse(res.body);
  } catch (e) {
    return hopFailure(`helper answered 200 with a body that is not JSON: ${truncate(String(res.body), 200)}`);
  }
  if (raw === null || typeof raw !== 'object' || typeof raw.ok !== 'boolean') {
    return hopFailure(`helper answered 200 without a record (no boolean "ok"): ${truncate(String(res.body), 200)}`);
  }
  return fromRecord(raw);
}

// parseRecord returns the helper's record in body, or null when body is not one.
function parseRecord(body) {
  if (typeof body !== 'string' || body === '') return null;
  try {
    const raw = JSON.parse(body);
    return raw !== null && typeof raw === 'object' && typeof raw.ok === 'boolean' ? raw : null;
  } catch (e) {
    return null;
  }
}

// ANSWER_VERSION is the helper answer's version this module reads
// (helper.AnswerVersion).
const ANSWER_VERSION = 2;

function fromRecord(raw) {
  if (raw.version !== ANSWER_VERSION || !Array.isArray(raw.samples)) {
    return hopFailure(`the helper answered version ${JSON.stringify(raw.version)}, this module reads version ${ANSWER_VERSION}: use the helper of the same release`);
  }
  let error = null;
  if (raw.error !== null && raw.error !== undefined) {
    error = {
      kind: typeof raw.error.kind === 'string' && raw.error.kind ? raw.error.kind : HELPER_ERROR_KIND,
      message: typeof raw.error.message === 'string' ? raw.error.message : '',
    };
  } else if (!raw.ok) {
    error = { kind: HELPER_ERROR_KIND, message: 'helper record has ok=false but no error' };
  }
  const st = Number(raw.status);
  const tags = raw.tags !== null && typeof raw.tags === 'object' ? raw.tags : null;
  return { status: isFinite(st) ? st : 0, error: error, raw: raw, samples: raw.samples, tags: tags };
}

// hopFailure is a request the helper did not answer for; its samples are
// failureSamples.
function hopFailure(message) {
  return { status: 0, error: { kind: HELPER_ERROR_KIND, message: message }, raw: null, samples: null, tags: null };
}

function msOrNull(raw, field) {
  if (raw === null || raw === undefined) return null;
  const v = raw[field];
  return typeof v === 'number' && isFinite(v) ? v : null;
}

function countOf(raw, field) {
  if (raw === null || raw === undefined) return 0;
  const v = raw[field];
  return typeof v === 'number' && isFinite(v) && v > 0 ? v : 0;
}

function stringTags(v, what) {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError(`llmstream: ${what} must be an object of strings`);
  }
  const out = {};
  for (const k of Object.keys(v)) {
    const x = v[k];
    if (x === null || x === undefined || typeof x === 'object' || typeof x === 'function') {
      throw new TypeError(`llmstream: ${what}.${k} must be a string, number or boolean`);
    }
    out[k] = String(x);
  }
  return out;
}

function plainObject(v, what) {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError(`llmstream: new Client: ${what} must be an object`);
  }
  return v;
}

function truncate(s, n) {
  return s.length <= n ? s : s.slice(0, n) + '…';
}

// The VU's id, read once per VU: every exec.vu access builds a new object in
// k6, which costs more than the rest of a request's bookkeeping.
let cachedVUID = null;
function vuID() {
  if (cachedVUID !== null) return cachedVUID;
  let id = '0';
  try {
    id = String(exec.vu.idInTest);
  } catch (e) {
    return id; // outside a VU
  }
  if (id !== '0') cachedVUID = id;
  return id;
}

// Runs fn with the request's metadata (request id, dataset entry id) set on
// the VU, and puts back what was there before.
function withMetadata(requestID, entryID, fn) {
  const meta = metadataObject();
  if (meta === null) return fn();
  const prevID = meta[REQUEST_ID_METADATA];
  const prevEntry = entryID ? meta[ENTRY_ID_METADATA] : undefined;
  meta[REQUEST_ID_METADATA] = requestID;
  if (entryID) meta[ENTRY_ID_METADATA] = entryID;
  try {
    return fn();
  } finally {
    putBack(meta, REQUEST_ID_METADATA, prevID);
    if (entryID) putBack(meta, ENTRY_ID_METADATA, prevEntry);
  }
}

function putBack(meta, key, prev) {
  if (prev === undefined || prev === null) delete meta[key];
  else meta[key] = prev;
}

// The VU's metadata object, looked up once per VU (see vuID).
let cachedMetadata;
function metadataObject() {
  if (cachedMetadata !== undefined) return cachedMetadata;
  let m = null;
  try {
    m = exec.vu.metrics.metadata;
  } catch (e) {
    return null; // outside a VU
  }
  cachedMetadata = m && typeof m === 'object' ? m : null;
  return cachedMetadata;
}

// ---------------------------------------------------------------------------
// Workloads: fixed output length, dataset entries, Dataset, Session, arrivals.

/**
 * The dialects fixedOutputTokens can pin, and whether the vLLM/SGLang extras
 * (ignore_eos, min_tokens) are sent: OpenAI-compatible servers take them;
 * Anthropic's API refuses unknown fields. The length field is max_tokens (or
 * max_completion_tokens when the request uses it).
 */
export const FIXED_LENGTH_DIALECTS = Object.freeze({
  'openai-chat': Object.freeze({ extras: true }),
  'openai-completions': Object.freeze({ extras: true }),
  'anthropic-messages': Object.freeze({ extras: false }),
  // max_tokens becomes the dialect's own field (dialectBody); these servers
  // have no ignore_eos, so the length is a cap and mismatches are counted.
  'openai-responses': Object.freeze({ extras: false }),
  'gemini': Object.freeze({ extras: false }),
  'cohere': Object.freeze({ extras: false }),
  'ollama': Object.freeze({ extras: false }),
});

// workloadOptions reads the Client options of fixed output length.
function workloadOptions(o, api) {
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

function positiveInt(v) {
  return typeof v === 'number' && Number.isInteger(v) && v > 0;
}

// A dataset entry (docs/dataset.md) is recognised by "v" and messages or prompt.
function isEntry(p) {
  return p !== null && typeof p === 'object' && !Array.isArray(p) && p.v === 1 &&
    (Array.isArray(p.messages) || typeof p.prompt === 'string');
}

// The request body of a dataset entry in the Client's dialect: its messages
// (or prompt) and max_tokens. Entries with a prompt become one user message on
// chat APIs; on openai-completions messages must be a single user message.
// Anthropic's system messages go to "system".
function entryBody(e, api) {
  const body = {};
  if (positiveInt(e.max_tokens)) body.max_tokens = e.max_tokens;
  const messages = Array.isArray(e.messages) ? e.messages : [{ role: 'user', content: e.prompt }];
  if (api === 'openai-completions') {
    if (typeof e.prompt === 'string') {
      body.prompt = e.prompt;
    } else if (messages.length === 1) {
      body.prompt = messages[0].content;
    } else {
      throw new TypeError(`llmstream: chat(entry ${JSON.stringify(e.id)}): openai-completions needs a prompt, and the entry has ${messages.length} messages (build it with xk6-llmstream dataset --as-prompt)`);
    }
    return body;
  }
  if (api === 'anthropic-messages') {
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
    if (system.length > 0) body.system = system.join('\n\n');
    body.messages = messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content }));
    return body;
  }
  body.messages = messages.map((m) => ({ role: m.role, content: m.content }));
  return body;
}

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

function checkEntry(e, where) {
  const bad = (msg) => new Error(`llmstream: Dataset ${where}: ${msg}`);
  if (e === null || typeof e !== 'object' || Array.isArray(e)) throw bad('not a JSON object');
  if (e.v !== 1) throw bad(`"v" is ${JSON.stringify(e.v)}, want 1 (the entry format version this module reads)`);
  const hasMsgs = e.messages !== undefined;
  if (hasMsgs === (e.prompt !== undefined)) throw bad('want exactly one of "messages" and "prompt"');
  if (hasMsgs) {
    if (!Array.isArray(e.messages) || e.messages.length === 0) throw bad('"messages" must be a non-empty array');
    e.messages.forEach((m, j) => {
      if (m === null || typeof m !== 'object' || typeof m.role !== 'string' || typeof m.content !== 'string') {
        throw bad(`messages[${j}] must be {"role": string, "content": string}`);
      }
    });
  } else if (typeof e.prompt !== 'string') {
    throw bad('"prompt" must be a string');
  }
  for (const k of ['max_tokens', 'output_tokens', 'input_tokens', 'turn']) {
    if (e[k] !== undefined && !(Number.isInteger(e[k]) && e[k] >= 0)) throw bad(`"${k}" must be a whole number ≥ 0, got ${JSON.stringify(e[k])}`);
  }
  if (e.at_ms !== undefined && !(typeof e.at_ms === 'number' && e.at_ms >= 0 && isFinite(e.at_ms))) {
    throw bad(`"at_ms" must be a send time in ms ≥ 0, got ${JSON.stringify(e.at_ms)}`);
  }
  if (e.session !== undefined && (typeof e.session !== 'string' || !positiveInt(e.turn))) {
    throw bad('"session" must be a string, with "turn" ≥ 1');
  }
  if (e.tags !== undefined && (e.tags === null || typeof e.tags !== 'object' || Array.isArray(e.tags))) {
    throw bad('"tags" must be an object of strings');
  }
}

const DATASET_OPTIONS = ['order', 'seed', 'name', 'vus'];

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

// totalVUs is the number of VUs the test can have (k6 numbers VUs 1..total
// across scenarios): options.vus or the sum of the scenarios' largest VU counts.
function totalVUs() {
  let o;
  try {
    o = exec.test.options;
  } catch (e) {
    return 1;
  }
  if (!o) return 1;
  const sc = o.scenarios;
  if (!sc || Object.keys(sc).length === 0) return Math.max(1, Number(o.vus) || 1);
  let total = 0;
  for (const name of Object.keys(sc)) {
    const s = sc[name];
    let n = Math.max(Number(s.vus) || 0, Number(s.startVUs) || 0, Number(s.maxVUs) || 0, Number(s.preAllocatedVUs) || 0);
    for (const st of s.stages || []) n = Math.max(n, Number(st.target) || 0);
    total += Math.max(1, n);
  }
  return total;
}

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

// prng returns a seeded uniform generator on (0, 1): mulberry32 over a
// splitmix-style mix of the seed.
export function prng(seed) {
  let a = (Math.floor(Number(seed)) ^ 0x9e3779b9) >>> 0;
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b) >>> 0;
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35) >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
}

/**
 * gammaSampler returns draws of a gamma distribution with the given shape and
 * mean (scale = mean / shape) from a uniform generator: Marsaglia and Tsang's
 * method, with the U^(1/shape) boost for shape < 1. Shape 1 is exponential.
 */
export function gammaSampler(shape, mean, rand) {
  if (!(shape > 0) || !(mean > 0)) throw new TypeError(`llmstream: gamma shape ${shape} and mean ${mean} must be > 0`);
  const scale = mean / shape;
  if (shape === 1) return () => -Math.log(rand()) * scale;
  const a = shape < 1 ? shape + 1 : shape;
  const d = a - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  const normal = () => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand());
  return () => {
    let x;
    for (;;) {
      const z = normal();
      const v0 = 1 + c * z;
      if (v0 <= 0) continue;
      const v = v0 * v0 * v0;
      const u = rand();
      if (Math.log(u) < 0.5 * z * z + d - d * v + d * Math.log(v)) {
        x = d * v;
        break;
      }
    }
    if (shape < 1) x *= Math.pow(rand(), 1 / shape);
    return x * scale;
  };
}

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

// sleepUntil resolves once Date.now() reaches due (unix ms). A k6 timer may
// fire early when the event loop is busy with many requests in flight (seen
// with real k6: first requests of a burst sent ~130 ms early), so it waits
// again until the time has come.
async function sleepUntil(due) {
  for (let wait = due - Date.now(); wait > 0; wait = due - Date.now()) {
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

// callScheduled calls fn(...args) with the intended send time set for the
// requests it starts synchronously; returns its promise (a throw rejects it).
function callScheduled(fn, args, scheduledMs) {
  const prev = ambientScheduledMs;
  ambientScheduledMs = scheduledMs;
  try {
    return Promise.resolve(fn(...args));
  } catch (e) {
    return Promise.reject(e);
  } finally {
    ambientScheduledMs = prev;
  }
}

const REPLAY_OPTIONS = ['speedup', 'from', 'to', 'count', 'maxInFlight', 'tags'];

// The send lag bound of a degraded replay, as the runner and analyze judge it
// (loadgen: p99 above 500 ms or median above 10 ms).
export const REPLAY_LAG_P99_MS = 500;
export const REPLAY_LAG_P50_MS = 10;

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
    if (!ok(v)) throw new TypeError(`llmstream: replay: ${k} must be ${want}, got ${JSON.stringify(opts[k])}`);
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
 * from `xk6-llmstream dataset --trace`) divided by `speedup`, without waiting
 * for earlier calls; fn should start the request and return its promise
 * (llm.asyncChat(entry)). Entries with at_ms in [from, to) of trace time are
 * replayed, at most `count` of them; at_ms must not decrease. Send times are
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
      throw new Error(`llmstream: replay: entry ${i + 1} (id ${JSON.stringify(e && e.id)}) has no "at_ms" send time ≥ 0 (build the file with xk6-llmstream dataset --trace)`);
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
    const due = stats.startMs + (t - base) / o.speedup;
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
