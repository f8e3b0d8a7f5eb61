// import.meta.resolve (k6 v0.54+) and open() of the file:// URL it returns.
import { readText, here } from './lib/files.js';

const fromMain = import.meta.resolve('./data/three.jsonl');
const fromLib = here('../data/three.jsonl'); // relative to lib/, the module it is written in
console.log('urls ' + JSON.stringify([fromMain, fromLib, import.meta.resolve(fromMain)]));
console.log('lines ' + readText(fromMain).split('\n').filter((l) => l !== '').length);
let bare = '';
try {
  import.meta.resolve('data/three.jsonl');
} catch (e) {
  bare = String(e);
}
console.log('bare ' + bare);
let missing = '';
try {
  readText(import.meta.resolve('./data/none.jsonl'));
} catch (e) {
  missing = String(e);
}
console.log('missing ' + missing);

export default function () {}
