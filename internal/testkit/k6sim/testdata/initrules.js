// What only the init context may do, and what it may not.
import { Trend } from 'k6/metrics';
import exec from 'k6/execution';
import http from 'k6/http';

const fileText = open('./lib/label.js');
const out = [];
try { exec.vu.idInTest; out.push('vu ok'); } catch (e) { out.push('vu: ' + e.message); }
try { http.get('http://127.0.0.1:1/'); out.push('http ok'); } catch (e) { out.push('http: ' + e.message); }
try { new Trend('bad-name'); out.push('name ok'); } catch (e) { out.push('name: ' + e.message); }
try { new Trend('dup', true); new Trend('dup'); out.push('dup ok'); } catch (e) { out.push('dup: ' + e.message); }
const t = new Trend('late_ok');
console.log('INIT ' + JSON.stringify(out));

export default function () {
  const res = [];
  try { new Trend('too_late'); res.push('metric ok'); } catch (e) { res.push('metric: ' + e.message); }
  try { open('./lib/label.js'); res.push('open ok'); } catch (e) { res.push('open: ' + e.message); }
  res.push('add NaN ' + t.add(NaN));
  res.push('add str ' + t.add('x'));
  try { t.add(1, { bad: { nested: 1 } }); res.push('tag ok'); } catch (e) { res.push('tag: ' + e.message); }
  res.push('file ' + (fileText.indexOf('from-lib') >= 0));
  console.log('VUOUT ' + JSON.stringify(res));
}
