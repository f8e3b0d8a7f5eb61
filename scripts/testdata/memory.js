// k6 memory of a dataset in every VU, for BenchmarkK6Memory: MODE=shared
// loads it with Dataset (one SharedArray per process), MODE=plain parses it
// into an ordinary array in every VU's init context.
import { Dataset } from '../../xk6-llmstream/js/llmstream.js';

const shared = __ENV.MODE === 'shared' ? new Dataset(__ENV.DATASET) : null;
const plain = __ENV.MODE === 'plain'
  ? open(__ENV.DATASET).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
  : null;

const vus = Number(__ENV.VUS || 100);
export const options = { vus: vus, iterations: vus };

export default function () {
  const e = shared !== null ? shared.next() : plain[__VU % plain.length];
  if (!e || e.v !== 1) throw new Error('no entry');
}
