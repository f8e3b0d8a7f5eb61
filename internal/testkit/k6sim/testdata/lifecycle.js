import { Counter } from 'k6/metrics';
import exec from 'k6/execution';
const c = new Counter('seen');
export const options = {
  scenarios: {
    late: { executor: 'constant-vus', vus: 1, duration: '1s', startTime: '30s', exec: 'late', env: { WHERE: 'late' } },
    early: { executor: 'per-vu-iterations', vus: 3, iterations: 2, env: { WHERE: 'early' } },
  },
  thresholds: { seen: ['count>0'], 'seen{where:early}': ['count==6'] },
};
export function setup() { return { token: 'from-setup', n: 3 }; }
export default function (data) {
  c.add(1, { where: __ENV.WHERE, data: data.token, vu: String(exec.vu.idInTest), it: String(exec.vu.iterationInScenario) });
}
export function late(data) {
  c.add(1, { where: __ENV.WHERE, data: data.token, sc: exec.scenario.name });
}
export function teardown(data) {
  console.log('TEARDOWN ' + JSON.stringify(data));
}
