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
