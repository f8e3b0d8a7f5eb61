// The arrivals() gap generator alone, for arrivals_test.go: for each case and
// seed, prints the first KS_N gaps (ms) and their mean (the mean of RATE_N
// gaps for each case's first seed).
import { prng, gammaSampler } from '../../xk6-llmstream/js/llmstream.js';

export default function () {
  const cases = JSON.parse(__ENV.CASES);
  const ksN = Number(__ENV.KS_N);
  const rateN = Number(__ENV.RATE_N);
  for (const c of cases) {
    for (const seed of c.seeds) {
      const gap = gammaSampler(c.burstiness, 1000 / c.rate, prng(seed));
      const gaps = [];
      let sum = 0;
      const n = seed === c.seeds[0] ? rateN : ksN;
      for (let i = 0; i < n; i++) {
        const g = gap();
        if (i < ksN) gaps.push(g);
        sum += g;
      }
      console.log(`gaps ${c.rate} ${c.burstiness} ${seed} ${sum / n} ${JSON.stringify(gaps)}`);
    }
  }
}
