// Checks of option values shared by the Client, Session, arrivals and replay.

export function stringTags(v, what) {
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

export function plainObject(v, what) {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError(`llmstream: new Client: ${what} must be an object`);
  }
  return v;
}

export function truncate(s, n) {
  return s.length <= n ? s : s.slice(0, n) + '…';
}

export function positiveInt(v) {
  return typeof v === 'number' && Number.isInteger(v) && v > 0;
}
