// Reading the helper's answer: the record of one request, or why there is none.

import { HELPER_ERROR_KIND } from './names.js';
import { truncate } from './internal/values.js';

export function readHelperAnswer(res) {
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
    return { status: 0, error: { kind: HELPER_ERROR_KIND, message: `helper answered ${status}: ${detail}` }, raw: raw, samples: null, sampleTags: null, tags: null };
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
const ANSWER_VERSION = 3;

// fromRecord reads a record (version 3): samples is an object {metric: value
// or [values]} in the order to add them, sample_tags (absent when empty) the
// tags of the values that have their own, one set per value.
function fromRecord(raw) {
  const samples = raw.samples;
  if (raw.version !== ANSWER_VERSION || samples === null || typeof samples !== 'object' || Array.isArray(samples)) {
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
  const st = raw.status;
  const tags = raw.tags !== null && typeof raw.tags === 'object' ? raw.tags : null;
  const sampleTags = raw.sample_tags !== null && typeof raw.sample_tags === 'object' ? raw.sample_tags : null;
  return { status: typeof st === 'number' && isFinite(st) ? st : 0, error: error, raw: raw, samples: samples, sampleTags: sampleTags, tags: tags };
}

// hopFailure is a request the helper did not answer for; its samples are
// failureSamples.
export function hopFailure(message) {
  return { status: 0, error: { kind: HELPER_ERROR_KIND, message: message }, raw: null, samples: null, sampleTags: null, tags: null };
}

// serverTimingsOf is the server's own timings of an answer, null when none.
export function serverTimingsOf(raw) {
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

function msOrNull(raw, field) {
  if (raw === null || raw === undefined) return null;
  const v = raw[field];
  return typeof v === 'number' && isFinite(v) ? v : null;
}

export function countOf(raw, field) {
  if (raw === null || raw === undefined) return 0;
  const v = raw[field];
  return typeof v === 'number' && isFinite(v) && v > 0 ? v : 0;
}

// toolCallsOf is an answer's tool calls for a script: {id, name, arguments
// (the JSON text as streamed), args (parsed; null when it did not parse),
// firstArg (ms from the request start to the first argument piece, null when
// none came), parseError ('' when the arguments are a JSON object)}.
export function toolCallsOf(raw) {
  if (!raw || !Array.isArray(raw.tools)) return [];
  return raw.tools.map((t) => {
    const args = typeof t.arguments === 'string' ? t.arguments : '';
    let parsed = null;
    if (!t.parse_error) {
      try {
        parsed = args === '' ? {} : JSON.parse(args);
      } catch (e) {
        parsed = null;
      }
    }
    return {
      id: typeof t.id === 'string' ? t.id : '',
      name: typeof t.name === 'string' ? t.name : '',
      arguments: args,
      args: parsed,
      firstArg: typeof t.first_arg_ms === 'number' ? t.first_arg_ms : null,
      parseError: typeof t.parse_error === 'string' ? t.parse_error : '',
    };
  });
}
