// The Client's prices option (the helper computes each request's llm_cost).

const PRICE_KEYS = ['input', 'output', 'cachedInput'];

// pricesOption validates the Client's prices: currency units per million
// tokens for input, output and cached input (which defaults to input). A
// missing input or output price is 0. Returns null without prices.
export function pricesOption(v) {
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
