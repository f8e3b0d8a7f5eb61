import { Counter } from 'k6/metrics';
const c = new Counter('c');
export const options = { thresholds: { [__ENV.KEY]: [__ENV.EXPR] } };
export default function () {}
