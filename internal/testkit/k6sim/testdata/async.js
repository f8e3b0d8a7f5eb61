// asyncRequest, the event loop, responses and unhandled rejections.
import http from 'k6/http';
import { check } from 'k6';

export default async function () {
  const [a, b] = await Promise.all([
    http.asyncRequest('POST', __ENV.URL + '/echo', 'one', { tags: { name: 'echo', kind: 'async' }, headers: { 'X-Test': 'yes' } }),
    http.asyncRequest('GET', __ENV.URL + '/json?x=1'),
  ]);
  const s = http.post(__ENV.URL + '/echo', JSON.stringify({ k: 'v' }), { timeout: '5s' });
  const dead = http.get(__ENV.DEAD);
  const slow = http.get(__ENV.URL + '/slow', { timeout: 50 });
  check(null, {
    'async body': () => a.status === 200 && a.body === 'POST one yes',
    'async json': () => b.json().x === '1' && b.headers['Content-Type'] === 'application/json',
    'sync': () => s.status === 200 && s.body === 'POST {"k":"v"} ',
    'refused': () => dead.status === 0 && dead.error_code === 1212 && dead.body === null,
    'timeout': () => slow.status === 0 && slow.error_code === 1050,
  });
  if (__ENV.REJECT === '1') {
    Promise.reject(new Error('nobody catches me'));
  }
}
