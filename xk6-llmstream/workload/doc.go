// Package workload builds request datasets for load tests of LLM APIs: a JSONL
// file with one request per line (see [Entry]), made from a ShareGPT-format
// conversation file, from a JSONL or CSV file of prompts, or by a seeded
// synthetic generator that writes prompts of exactly the asked number of tokens
// under a named [Tokenizer].
//
// The pieces, one a file:
//   - entry.go: the line format, [Entry], versioned by its "v" field;
//   - tokenizer.go, tiktoken.go: token counting offline, with OpenAI's encodings
//     built in (tiktoken's merge rule, O(n log n));
//   - hf.go, hfnorm.go, hfpretok.go, hfbpe.go: a Hugging Face tokenizer.json (BPE)
//     by path, following the tokenizers library step by step; both kinds are
//     checked id for id against the reference implementations (golden_test.go);
//   - lengths.go: token-length distributions ([Dist]);
//   - exacttext.go: text of an exact token count ([TextGen]);
//   - synthetic.go: the synthetic generator, with shared-prefix groups and
//     multi-turn sessions ([Synthetic]);
//   - sharegpt.go, prompts.go, linecount.go, input.go: the input files, read as a
//     stream of [Prompt]s, with line numbers in every error, each entry bounded
//     by [MaxEntryBytes], UTF-8 checked;
//   - build.go: turns prompts into entries ([Builder]) on all cores, in order;
//   - writer.go, progress.go: the JSONL output and the progress bar.
//
// Everything is seeded: the same inputs, options and seed give a byte-identical
// file.
package workload
