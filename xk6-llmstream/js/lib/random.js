// Seeded random draws: uniform (prng) and gamma-distributed gaps.

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
