// setTimeout, clearTimeout and k6/data's SharedArray.
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';
import { check } from 'k6';

export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 3, iterations: 1 } } };

let built = 0; // per VU: how often this VU's SharedArray function ran
const rows = new SharedArray('rows', () => {
  built++;
  return open('./data/three.jsonl').trim().split('\n').map((l) => JSON.parse(l));
});
const builtHere = built;

export default async function () {
  const order = [];
  const t0 = Date.now();
  await new Promise((resolve) => {
    setTimeout(() => order.push('b'), 20.5);
    const never = setTimeout(() => order.push('never'), 1);
    clearTimeout(never);
    setTimeout((x) => { order.push(x); }, 0.25, 'a');
    setTimeout(resolve, 40);
  });
  let frozen = false;
  try {
    rows[0].n = 99;
  } catch (e) {
    frozen = true;
  }
  let immutable = false;
  try {
    rows[1] = { n: 5 };
  } catch (e) {
    immutable = true;
  }
  check(null, {
    'order': () => order.join(',') === 'a,b',
    'waited': () => Date.now() - t0 >= 40,
    'rows': () => rows.length === 3 && rows[2].n === 3 && rows[0].n === 1,
    'frozen': () => frozen && rows[0].n === 1,
    'immutable': () => immutable,
    'iterable': () => Array.from(rows).map((r) => r.n).join('') === '123',
  });
  console.log(`built vu=${exec.vu.idInTest} ${builtHere}`);
  if (__ENV.BOOM === '1') setTimeout(() => { throw new Error('late boom'); }, 1);
}
