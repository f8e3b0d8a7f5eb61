package workload

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// Tokenizer turns text into token ids and back. Implementations are safe for
// concurrent use.
type Tokenizer interface {
	// Name is the encoding name or the tokenizer.json path it was loaded from.
	Name() string
	// Encode returns the token ids of text. It stops with ctx's error when
	// ctx is done, and fails (naming the pattern) when a regex of the
	// tokenizer exceeds its match time bound on this text.
	Encode(ctx context.Context, text string) ([]int, error)
	Decode(ids []int) string
	// VocabSize is one more than the largest ordinary token id.
	VocabSize() int
}

// Count is the number of tokens of text under tok.
func Count(ctx context.Context, tok Tokenizer, text string) (int, error) {
	ids, err := tok.Encode(ctx, text)
	return len(ids), err
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]Tokenizer{}
)

// LoadTokenizer loads a built-in encoding by name (see [BuiltinEncodings]) or a
// Hugging Face tokenizer.json by path (gzip-compressed or not). Nothing is
// fetched from the network. A tokenizer is loaded once per process and shared.
func LoadTokenizer(spec string) (Tokenizer, error) {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if t, ok := loaded[spec]; ok {
		return t, nil
	}
	var t Tokenizer
	var err error
	if _, builtin := tiktokenVocab[spec]; builtin {
		t, err = loadTiktoken(spec)
	} else if _, statErr := os.Stat(spec); statErr == nil {
		t, err = loadHF(spec)
	} else {
		err = fmt.Errorf("unknown tokenizer %q: not a built-in encoding (%s) nor a tokenizer.json file (%v)",
			spec, strings.Join(BuiltinEncodings(), ", "), statErr)
	}
	if err != nil {
		return nil, err
	}
	loaded[spec] = t
	return t, nil
}

// BuiltinEncodings lists the encoding names [LoadTokenizer] knows.
func BuiltinEncodings() []string {
	names := make([]string, 0, len(tiktokenVocab))
	for n := range tiktokenVocab {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
