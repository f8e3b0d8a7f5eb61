import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const c = new Counter('ran');
export default function () {
  c.add(1);
  if (exec.vu.iterationInInstance === 2) {
    exec.test.abort('enough');
    c.add(100); // never reached
  }
}
