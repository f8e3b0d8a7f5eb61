package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// hfTokenizer counts with a Hugging Face tokenizer.json, read by
// github.com/sugarme/tokenizer. Special tokens (BOS and the like) are not
// added: counts are of the text alone.
type hfTokenizer struct {
	path string
	tk   *tokenizer.Tokenizer
	size int
}

func loadHF(path string) (tok Tokenizer, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading tokenizer %s: %w", path, err)
	}
	var cfg tokenizer.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("tokenizer %s: not a tokenizer.json: %w", path, err)
	}
	if cfg.Model == nil {
		return nil, fmt.Errorf("tokenizer %s: no \"model\" section", path)
	}
	// Split and ByteLevel pre-tokenizers (GPT-2, Llama 3, Qwen, Mistral's
	// Tekken) get ours: their regexes use look-ahead, which the library's
	// RE2-based Split cannot compile.
	var own *byteLevelPreTokenizer
	if isByteLevelFamily(cfg.PreTokenizer) {
		if own, err = newByteLevelPreTokenizer(cfg.PreTokenizer); err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", path, err)
		}
		cfg.PreTokenizer = nil
	}
	// The library panics on some inputs it does not support; report those as
	// errors naming the file.
	defer func() {
		if r := recover(); r != nil {
			tok, err = nil, fmt.Errorf("tokenizer %s: unsupported by the tokenizer library: %v", path, r)
		}
	}()
	again, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	tk, err := pretrained.FromReader(bytes.NewReader(again))
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	if own != nil {
		tk.WithPreTokenizer(own)
	}
	size := 0
	for _, id := range tk.GetVocab(false) {
		size = max(size, id+1)
	}
	return &hfTokenizer{path: path, tk: tk, size: size}, nil
}

func (t *hfTokenizer) Name() string { return t.path }

func (t *hfTokenizer) Encode(text string) []int {
	enc, err := t.tk.EncodeSingle(text, false)
	if err != nil {
		// The library fails only on pre-tokenizer errors, which ours never
		// returns; an empty count would silently corrupt a dataset.
		panic(fmt.Sprintf("tokenizer %s: encoding failed: %v", t.path, err))
	}
	return enc.Ids
}

func (t *hfTokenizer) Decode(ids []int) string { return t.tk.Decode(ids, false) }

func (t *hfTokenizer) VocabSize() int { return t.size }
