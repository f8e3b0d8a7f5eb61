// Embeddings and rerank (docs/embeddings.md): Client.embed() and
// Client.rerank(), non-streaming calls through the same helper. The helper
// times the call, reads the input tokens the server reported and the batch,
// and answers with the llm_embed_* or llm_rerank_* samples
// (metrics.FromRecord), never generation's.

import http from 'k6/http';
import { Trend, Counter, Rate } from 'k6/metrics';
import { HELPER_REQUEST_NAME, CALL_METRICS } from './names.js';
import { VERSION } from './version.js';
import { readHelperAnswer, hopFailure, countOf } from './answer.js';
import { durationMs } from './durations.js';
import { stringTags } from './internal/values.js';
import { declareMetric, addSamples, firstSample } from './metrics.js';
import { nextRequestID, withMetadata } from './vu.js';
import { Client, HOP_GRACE_MS } from './client.js';

/** The embeddings and rerank APIs and the endpoint path each uses by default. */
export const CALL_APIS = Object.freeze({
  'openai-embeddings': '/v1/embeddings',
  'cohere-embed': '/v2/embed',
  'cohere-rerank': '/v2/rerank',
  // vLLM (/v1/rerank, also /rerank) and Hugging Face TEI (/rerank, with tei: true).
  rerank: '/v1/rerank',
});

declareMetric(CALL_METRICS.embedDuration, new Trend(CALL_METRICS.embedDuration, true));
declareMetric(CALL_METRICS.embedInputTokens, new Counter(CALL_METRICS.embedInputTokens));
declareMetric(CALL_METRICS.embedBatchSize, new Trend(CALL_METRICS.embedBatchSize));
declareMetric(CALL_METRICS.embedFailed, new Rate(CALL_METRICS.embedFailed));
declareMetric(CALL_METRICS.rerankDuration, new Trend(CALL_METRICS.rerankDuration, true));
declareMetric(CALL_METRICS.rerankInputTokens, new Counter(CALL_METRICS.rerankInputTokens));
declareMetric(CALL_METRICS.rerankDocuments, new Trend(CALL_METRICS.rerankDocuments));
declareMetric(CALL_METRICS.rerankFailed, new Rate(CALL_METRICS.rerankFailed));

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
  const id = nextRequestID();
  this._started++;
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
  const samples = answer.samples !== null ? answer.samples : { [m.failed]: 1 };
  const r = {
    ok: err === null,
    status: answer.status,
    error: err,
    errorKind: err === null ? '' : err.kind,
    kind: kind,
    api: api,
    model: (answer.tags && answer.tags.model) || (typeof body.model === 'string' ? body.model : ''),
    duration: firstSample(samples, m.duration),
    inputTokens: countOf(raw, 'input_tokens'),
    tokenSource: answer.tags && typeof answer.tags.token_source === 'string' ? answer.tags.token_source : '',
    batch: countOf(raw, 'batch'),
    results: countOf(raw, 'results'),
    warmup: warmup,
    requestId: id,
    raw: raw,
  };
  if (!warmup) {
    const moduleTags = answer.tags || { model: r.model, api: api, status: String(r.status), error: r.errorKind, token_source: r.tokenSource };
    withMetadata(id, '', addSamples, samples, Object.assign({}, tags, moduleTags), answer.sampleTags);
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
