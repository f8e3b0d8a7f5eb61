// Client: one streaming request per chat(), through the helper.

import http from 'k6/http';
import { APIS, METRICS, WORKLOAD_METRICS } from './names.js';
import { readHelperAnswer, hopFailure, serverTimingsOf, countOf, toolCallsOf } from './answer.js';
import { dialectBody } from './dialects.js';
import { durationMs } from './durations.js';
import { isEntry, entryBody } from './entry.js';
import { warnUnknownFields } from './fields.js';
import { ambientScheduledMs } from './internal/schedule.js';
import { wireTail, cachedTail, urlJSON, hopParams, newWireCache, HOP_GRACE_MS } from './internal/wire.js';
import { stringTags, plainObject, positiveInt } from './internal/values.js';
import { declareSLOMetric, addSamples, firstSample, allSamples, failureSamples } from './metrics.js';
import { outputInvalidOf } from './media.js';
import { itlOption, sloOption, sampleOptions, workloadOptions } from './options.js';
import { pricesOption } from './pricing.js';
import { endpointURL, checkBaseURL, modelURL } from './urls.js';
import { nextRequestID, withMetadata } from './vu.js';

const DEFAULT_TIMEOUT_MS = 120000;
export { HOP_GRACE_MS };
const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
const DEFAULT_ANTHROPIC_MAX_TOKENS = 1024;

const CLIENT_OPTIONS = [
  'baseURL', 'apiKey', 'model', 'api', 'path', 'helper', 'helperToken', 'headers',
  'body', 'tags', 'timeout', 'idleTimeout', 'includeUsage', 'keepText',
  'keepTimeline', 'itl', 'warmup', 'slo', 'anthropicVersion', 'stages', 'fixedOutputTokens', 'vllmExtras',
  'prices', 'tokenAudit',
];
const CALL_OPTIONS = ['tags', 'timeout', 'idleTimeout', 'headers', 'keepText', 'keepTimeline', 'scheduledAt'];
const NO_OPTIONS = Object.freeze({}); // chat() without call options

function checkCallOptions(co) {
  if (typeof co !== 'object' || Array.isArray(co)) {
    throw new TypeError('llmstream: chat(params, options): options must be an object');
  }
  for (const k of Object.keys(co)) {
    if (CALL_OPTIONS.indexOf(k) < 0) {
      throw new TypeError(`llmstream: chat: unknown option ${JSON.stringify(k)} (known: ${CALL_OPTIONS.join(', ')})`);
    }
  }
}

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
    if (this.slo !== null) declareSLOMetric(Boolean(this.slo.deadline));

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
    // What _prepare makes once (the wire's JSON text has the key: not enumerable).
    Object.defineProperty(this, '_cache', { value: newWireCache(), enumerable: false });
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
    const co = callOptions === undefined || callOptions === null ? NO_OPTIONS : callOptions;
    if (co !== NO_OPTIONS) checkCallOptions(co);
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
    const scheduledMs = co.scheduledAt === undefined ? ambientScheduledMs() : co.scheduledAt;
    if (scheduledMs !== null && !(typeof scheduledMs === 'number' && scheduledMs > 0 && isFinite(scheduledMs))) {
      throw new TypeError(`llmstream: chat: scheduledAt must be the intended send time in unix ms (a number > 0), got ${JSON.stringify(co.scheduledAt)}`);
    }

    const id = nextRequestID();
    this._started++;
    const tags = entry === null && co.tags === undefined ? this.tags
      : Object.assign({}, this.tags, entry !== null ? stringTags(entry.tags, 'entry.tags') : {}, stringTags(co.tags, 'tags'));
    const warmup = this._started <= this.warmup;
    // The wire (helper.Request) as JSON text: the request's own fields, then
    // the Client's (made once: wireTail) unless the call changes one of them.
    let head = '{"url":' + urlJSON(this, model) + ',"body":' + JSON.stringify(body) + ',"id":"' + id + '"'; // ids are [0-9a-z-]
    // For the helper's records (--records) only.
    for (const k in tags) {
      head += ',"tags":' + JSON.stringify(tags);
      break;
    }
    if (warmup) head += ',"warmup":true';
    // Open-loop load: the intended send time (llm_ttft_scheduled, llm_e2e_scheduled).
    if (scheduledMs !== null) head += ',"scheduled_unix_ns":' + Math.round(scheduledMs * 1e6);
    const own = co.headers === undefined && timeoutMs === this.timeoutMs && idleMs === this.idleTimeoutMs &&
      keepText === this.keepText && keepTimeline === this.keepTimeline && expected === null;
    let tail;
    if (own) {
      tail = cachedTail(this);
    } else {
      const headers = co.headers === undefined ? this._headers : Object.assign({}, this._headers, stringTags(co.headers, 'headers'));
      const samples = expected === null ? this._samples : Object.assign({ expect_output_tokens: expected }, this._samples);
      tail = wireTail(this, headers, timeoutMs, idleMs, keepText, keepTimeline, samples);
    }

    return {
      payload: head + tail,
      httpParams: hopParams(this, timeoutMs),
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
    const own = answer.tags;
    const samples = answer.samples !== null ? answer.samples : failureSamples(this);
    const r = {
      ok: err === null,
      status: answer.status,
      error: err,
      errorKind: err === null ? '' : err.kind,
      model: (own !== null && typeof own.model === 'string' && own.model) || req.model,
      api: (own !== null && typeof own.api === 'string' && own.api) || this.api,
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
      tokenSource: own !== null && typeof own.token_source === 'string' ? own.token_source : '',
      finishReason: raw !== null && typeof raw.finish_reason === 'string' ? raw.finish_reason : '',
      toolCalls: toolCallsOf(raw),
      toolCallFirstArg: firstSample(samples, METRICS.toolCallFirstArg),
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
    r.sloMet = this.slo === null ? null : firstSample(samples, METRICS.sloMet) === 1;
    r.cost = this.prices === null ? null : firstSample(samples, METRICS.cost);
    r.entryId = req.entryID;
    r.expectedOutputTokens = req.expectedOutput;
    r.outputLengthMismatch = firstSample(samples, WORKLOAD_METRICS.outputLengthMismatch) === 1;
    r.outputInvalid = outputInvalidOf(samples, answer.sampleTags);
    if (!r.warmup) this._record(req, r, samples, answer);
    return r;
  }

  _record(req, r, samples, answer) {
    // Client tags and per-call tags first; the module's own tags win, because
    // they are the contract analyze and thresholds rely on.
    let tags = answer.tags || {
      model: r.model,
      api: r.api,
      status: String(r.status),
      error: r.errorKind,
      token_source: r.tokenSource,
    };
    for (const k in req.tags) {
      tags = Object.assign({}, req.tags, tags);
      break;
    }
    withMetadata(req.id, req.entryID, addSamples, samples, tags, answer.sampleTags);
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
