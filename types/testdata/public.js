// What llmstream.js exposes at run time, printed for types_test.go to hold
// against llmstream.d.ts: the module's exports and, for each class, the public
// fields of an instance and the methods and getters of its prototype.
import * as llmstream from '../../xk6-llmstream/js/llmstream.js';

const client = new llmstream.Client({
  baseURL: 'http://127.0.0.1:9/v1',
  helper: 'http://127.0.0.1:9',
  slo: { ttft: '2s' },
  prices: { input: 1, output: 2 },
  fixedOutputTokens: 16,
});
const dataset = new llmstream.Dataset(import.meta.resolve('../../scripts/data/multi-turn.jsonl'));
const session = new llmstream.Session(client, { thinkTime: ['1s', '2s'] });

/** @param {object} o */
function members(o) {
  const proto = Object.getPrototypeOf(o);
  return Object.keys(o).concat(Object.getOwnPropertyNames(proto).filter((k) => k !== 'constructor'));
}

console.log('public ' + JSON.stringify({
  exports: Object.keys(llmstream),
  Client: members(client),
  Dataset: members(dataset),
  Session: members(session),
}));

export default function () {}
