#!/usr/bin/env python3
"""Rebuilds the small tokenizer.json fixtures of package workload from
qwen-style-tokenizer.json (see SOURCES.md). Run from this directory:

    python3 mkfixtures.py

1. qwen-style-tokenizer.json: drops the merges that do not name two
   non-empty vocabulary tokens (the Hugging Face tokenizers library refuses
   to load a file with them: "Token `` out of vocabulary").
2. llama2-style-tokenizer.json: the same vocabulary in the SentencePiece
   layout of Llama 2 (normalizer Prepend "▁" + Replace " " -> "▁", no
   pre-tokenizer, BPE with byte_fallback and fuse_unk, <unk> <s> </s> and
   the 256 <0xNN> byte tokens).
3. metaspace-style-tokenizer.json: the same, laid out as newer Llama/Mistral
   conversions (Metaspace pre-tokenizer, prepend_scheme "first", split
   false, no normalizer).
"""
import json

src = json.load(open("qwen-style-tokenizer.json", encoding="utf-8"))
vocab = src["model"]["vocab"]
merges = []
for m in src["model"]["merges"]:
    a, sep, b = m.partition(" ")
    if a and b and " " not in b and a in vocab and b in vocab and a + b in vocab:
        merges.append(m)
src["model"]["merges"] = merges


def dump(doc, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        f.write("\n")


dump(src, "qwen-style-tokenizer.json")

# SentencePiece layout: Ġ (the byte-level space) becomes ▁.
special = ["<unk>", "<s>", "</s>"]
sp_vocab = {t: i for i, t in enumerate(special)}
for b in range(256):
    sp_vocab["<0x%02X>" % b] = len(sp_vocab)
for tok, _ in sorted(vocab.items(), key=lambda kv: kv[1]):
    t = tok.replace("Ġ", "▁")
    if t not in sp_vocab:
        sp_vocab[t] = len(sp_vocab)
sp_merges = []
for m in merges:
    a, _, b = m.partition(" ")
    a, b = a.replace("Ġ", "▁"), b.replace("Ġ", "▁")
    if a in sp_vocab and b in sp_vocab and a + b in sp_vocab:
        sp_merges.append(a + " " + b)
added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
          "normalized": False, "special": True} for i, t in enumerate(special)]
model = {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
         "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
         "vocab": sp_vocab, "merges": sp_merges}
decoder = {"type": "Sequence", "decoders": [
    {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
    {"type": "ByteFallback"}, {"type": "Fuse"},
    {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
llama2 = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
          "normalizer": {"type": "Sequence", "normalizers": [
              {"type": "Prepend", "prepend": "▁"},
              {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
          "pre_tokenizer": None, "post_processor": None, "decoder": decoder, "model": model}
dump(llama2, "llama2-style-tokenizer.json")

meta = dict(llama2)
meta["normalizer"] = None
meta["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
meta["decoder"] = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
dump(meta, "metaspace-style-tokenizer.json")
