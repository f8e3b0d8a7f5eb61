// goldens.js writes ../golden/NAME.json: for each string of ../tokcorpus.json,
// its token ids under one reference tokenizer. Usage (NODE_PATH naming a
// node_modules with the packages installed; GOLDEN_DIR=DIR writes there):
//   node goldens.js hf NAME TOKENIZER.json[.gz]   (npm "tokenizers", the official Rust binding)
//   node goldens.js tiktoken ENCODING             (npm "tiktoken", OpenAI's Rust core in wasm)
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const corpus = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'tokcorpus.json'), 'utf8'));

async function main() {
  const [kind, name, file] = process.argv.slice(2);
  let ids, tool;
  if (kind === 'hf') {
    const { Tokenizer } = require('tokenizers');
    let raw = fs.readFileSync(file);
    if (raw[0] === 0x1f && raw[1] === 0x8b) raw = zlib.gunzipSync(raw);
    const tmp = path.join(require('os').tmpdir(), 'golden-' + process.pid + '.json');
    fs.writeFileSync(tmp, raw);
    const tok = Tokenizer.fromFile(tmp);
    fs.unlinkSync(tmp);
    ids = [];
    for (const s of corpus) ids.push(Array.from((await tok.encode(s, null, { addSpecialTokens: false })).getIds()));
    tool = 'npm tokenizers ' + require(require.resolve('tokenizers').replace(/index\.js$/, 'package.json')).version;
  } else if (kind === 'tiktoken') {
    const tt = require('tiktoken');
    const enc = tt.get_encoding(name);
    ids = corpus.map((s) => Array.from(enc.encode_ordinary(s)));
    enc.free();
    const pj = path.join(path.dirname(require.resolve('tiktoken')), 'package.json');
    tool = 'npm tiktoken ' + JSON.parse(fs.readFileSync(pj, 'utf8')).version + ' (encode_ordinary)';
  } else {
    throw new Error('usage: goldens.js hf NAME FILE | tiktoken ENCODING');
  }
  const out = { name, tool, command: 'node goldens.js ' + process.argv.slice(2).map((a) => path.basename(a)).join(' '), ids };
  const dir = process.env.GOLDEN_DIR || path.join(__dirname, '..', 'golden');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name + '.json'), JSON.stringify(out) + '\n');
  console.log(name, tool, ids.reduce((a, x) => a + x.length, 0), 'tokens');
}
main().catch((e) => { console.error(e); process.exit(1); });
