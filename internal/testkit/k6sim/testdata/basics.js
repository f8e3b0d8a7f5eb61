// Exercises the stand-ins: metrics, tags, checks, groups, metadata, execution.
import { Trend, Counter, Rate, Gauge } from 'k6/metrics';
import exec from 'k6/execution';
import { check, group, sleep } from 'k6';
import { label } from './lib/label.js';

const t = new Trend('sim_t', true);
const c = new Counter('sim_c');
const r = new Rate('sim_r');
const g = new Gauge('sim_g');

let initVU = '';
try {
  initVU = String(exec.vu.idInTest);
} catch (e) {
  initVU = 'threw: ' + e.message;
}

let perVU = 0; // module state is per VU

export const options = {
  tags: { testwide: 'yes', scenario: 'overridden-by-k6' },
  scenarios: {
    first: { executor: 'per-vu-iterations', vus: 2, iterations: 10, tags: { phase: 'one' }, env: { WHO: 'first' } },
    second: { executor: 'constant-vus', vus: 1, duration: '10s', exec: 'other', startTime: '10s' },
  },
  thresholds: { sim_t: ['p(50)>=0'], 'sim_c{phase:one}': ['count>0'] },
};

export default function () {
  perVU++;
  exec.vu.metrics.metadata.req = 'id-' + exec.vu.iterationInScenario;
  t.add(10, { call: 'x', testwide: 'call-wins' });
  delete exec.vu.metrics.metadata.req;
  c.add(perVU, { label: label() });
  r.add(true);
  g.add(3);
  const ok = check(perVU, { positive: (v) => v > 0, never: () => false });
  group('outer', () => {
    group('inner', () => { t.add(1); });
  });
  exec.vu.metrics.tags.custom = 42;
  t.add(2, { env: __ENV.WHO || 'none', init: initVU, ok: ok });
  sleep(0.001);
}

export function other() {
  t.add(5, { scenarioName: exec.scenario.name });
}
