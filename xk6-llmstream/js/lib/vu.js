// What the module knows of the VU it runs in: its id, its request ids, the
// metadata set on each request's samples, and the test's VU count.

import exec from 'k6/execution';
import { REQUEST_ID_METADATA, ENTRY_ID_METADATA } from './names.js';

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

// nextRequestID is the id of the VU's next request.
export function nextRequestID() {
  requestSeq++;
  return ID_PREFIX + '-' + vuID() + '-' + requestSeq;
}

// requestNumber is the number of the VU's latest request (1, 2, ...).
export function requestNumber() {
  return requestSeq;
}

// The VU's id, read once per VU: every exec.vu access builds a new object in
// k6, which costs more than the rest of a request's bookkeeping.
let cachedVUID = null;
export function vuID() {
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

// Runs fn(a, b, c) with the request's metadata (request id, dataset entry id)
// set on the VU, and puts back what was there before (the arguments spare a
// closure per request).
export function withMetadata(requestID, entryID, fn, a, b, c) {
  const meta = metadataObject();
  if (meta === null) return fn(a, b, c);
  const prevID = meta[REQUEST_ID_METADATA];
  const prevEntry = entryID ? meta[ENTRY_ID_METADATA] : undefined;
  meta[REQUEST_ID_METADATA] = requestID;
  if (entryID) meta[ENTRY_ID_METADATA] = entryID;
  try {
    return fn(a, b, c);
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

// totalVUs is the number of VUs the test can have (k6 numbers VUs 1..total
// across scenarios): options.vus or the sum of the scenarios' largest VU counts.
export function totalVUs() {
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
