import { fail } from 'k6';
import { Counter } from 'k6/metrics';
const after = new Counter('after_fail');
export default function () {
  if (__ITER === 1) fail('boom at ' + __ITER);
  after.add(1);
}
