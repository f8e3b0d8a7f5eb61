// Command mktokenizer builds testdata/qwen-style-tokenizer.json: a small
// byte-level BPE tokenizer in the Hugging Face tokenizer.json format, laid out as
// Qwen2 and Llama 3 lay theirs out (a Split pre-tokenizer with their regex, then
// ByteLevel without its own regex, and a ByteLevel decoder). The merges are
// learnt by github.com/sugarme/tokenizer's BPE trainer from the Go language
// specification shipped with the Go toolchain ($GOROOT/doc/go_spec.html, BSD-3,
// The Go Authors). It lives under testdata so that go build ./... skips it; run
//
//	go run ./xk6-llmstream/workload/testdata/mktokenizer xk6-llmstream/workload/testdata/qwen-style-tokenizer.json
//
// (the trainer prints its progress on standard output, hence the file argument).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/sugarme/tokenizer/model/bpe"
	"github.com/sugarme/tokenizer/pretokenizer"
)

// qwen2Split is the pre-tokenizer regex of Qwen2's and Llama 3's tokenizer.json.
const qwen2Split = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

const vocabSize = 3000

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mktokenizer:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: mktokenizer OUT.json")
	}
	counts, err := wordCounts(filepath.Join(runtime.GOROOT(), "doc", "go_spec.html"))
	if err != nil {
		return err
	}
	trainer := bpe.NewBpeTrainer(2, vocabSize)
	alphabet := bpe.CharSet{}
	for b := 0; b < 256; b++ {
		alphabet[pretokenizer.BytesChar[uint8(b)]] = struct{}{}
	}
	trainer.InitialAlphabet = alphabet
	m, _ := trainer.Train(counts)
	model, ok := m.(bpe.BPE)
	if !ok {
		return fmt.Errorf("trainer returned %T, not a BPE model", m)
	}
	out, err := os.Create(os.Args[1])
	if err != nil {
		return err
	}
	if err := write(out, &model); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// wordCounts splits each line at spaces the GPT-2 way (sugarme's ByteLevel) and
// counts the byte-level words.
func wordCounts(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		word := ""
		for _, b := range []byte(sc.Text() + "\n") {
			if b == ' ' || b == '\n' {
				if word != "" {
					counts[word]++
				}
				word = ""
			}
			if b != '\n' {
				word += pretokenizer.BytesChar[b]
			}
		}
	}
	return counts, sc.Err()
}

func write(w *os.File, model *bpe.BPE) error {
	vocab := map[string]int(*model.Vocab)
	rev := map[int]string(*model.VocabR)
	type merge struct {
		rank int
		text string
	}
	var merges []merge
	for p, v := range *model.Merges {
		merges = append(merges, merge{v.Rank, rev[p.C1] + " " + rev[p.C2]})
	}
	sort.Slice(merges, func(i, j int) bool { return merges[i].rank < merges[j].rank })
	mergeText := make([]string, len(merges))
	for i, m := range merges {
		mergeText[i] = m.text
	}
	endID := len(vocab)
	doc := map[string]any{
		"version":    "1.0",
		"truncation": nil,
		"padding":    nil,
		"added_tokens": []any{map[string]any{"id": endID, "content": "<|endoftext|>", "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false, "special": true}},
		"normalizer": map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": qwen2Split}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}},
		"post_processor": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		"decoder":        map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "vocab": vocab, "merges": mergeText},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
