// The wire to the helper (helper.Request) as JSON text, made per request from
// pieces that are the same for every request of a Client: k6 spends less on
// a concatenation than on JSON.stringify of the whole object.

import { VERSION } from '../version.js';
import { HELPER_REQUEST_NAME } from '../names.js';
import { modelURL } from '../urls.js';

// HOP_GRACE_MS is how much longer than the request's timeout k6 waits for
// the helper's answer.
export const HOP_GRACE_MS = 5000;

// newWireCache is a Client's store of what wire pieces it made (not
// enumerable on the Client: the tail has the API key).
export function newWireCache() {
  return { tail: null, includeUsage: null, timeoutMs: null, idleMs: null, keepText: null, keepTimeline: null, tokenAudit: null,
    urlJSON: null, urlModel: '', params: null, paramsTimeout: 0 };
}

// wireTail is the JSON text of the wire's fields that are the Client's (or
// a call's) options, closing the object that _prepare begins: a valid JSON
// object's members after a comma.
export function wireTail(c, headers, timeoutMs, idleMs, keepText, keepTimeline, samples) {
  const w = {
    api: c.api,
    headers: headers,
    include_usage: c.includeUsage,
    timeout_ms: timeoutMs,
    keep_text: keepText,
    keep_timeline: keepTimeline,
    samples: samples,
    module_version: VERSION, // the helper refuses another release's module
  };
  if (idleMs !== null) w.idle_timeout_ms = idleMs;
  if (c.tokenAudit !== null) w.token_audit = c.tokenAudit;
  return ',' + JSON.stringify(w).slice(1);
}

// cachedTail is wireTail of the Client's own options, made again only when
// a script changed one of them.
export function cachedTail(c) {
  const k = c._cache;
  if (k.tail === null || k.includeUsage !== c.includeUsage || k.timeoutMs !== c.timeoutMs || k.idleMs !== c.idleTimeoutMs ||
    k.keepText !== c.keepText || k.keepTimeline !== c.keepTimeline || k.tokenAudit !== c.tokenAudit) {
    k.tail = wireTail(c, c._headers, c.timeoutMs, c.idleTimeoutMs, c.keepText, c.keepTimeline, c._samples);
    k.includeUsage = c.includeUsage;
    k.timeoutMs = c.timeoutMs;
    k.idleMs = c.idleTimeoutMs;
    k.keepText = c.keepText;
    k.keepTimeline = c.keepTimeline;
    k.tokenAudit = c.tokenAudit;
  }
  return k.tail;
}

// urlJSON is the JSON text of the Client's upstream URL for model.
export function urlJSON(c, model) {
  const k = c._cache;
  if (k.urlJSON === null || k.urlModel !== model) {
    k.urlJSON = JSON.stringify(modelURL(c._urlTemplate, model));
    k.urlModel = model;
  }
  return k.urlJSON;
}

// hopParams are k6's params of the hop to the helper for a request timeout
// (one object per Client and timeout: k6 only reads them).
export function hopParams(c, timeoutMs) {
  const k = c._cache;
  if (k.params === null || k.paramsTimeout !== timeoutMs) {
    k.params = {
      headers: c._hopHeaders,
      tags: { name: HELPER_REQUEST_NAME },
      timeout: Math.ceil(timeoutMs + Math.max(HOP_GRACE_MS, timeoutMs / 10)),
    };
    k.paramsTimeout = timeoutMs;
  }
  return k.params;
}
