package workload

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countdownCtx is a context whose Err turns to Canceled after a number of
// calls: it shows that work checks its context while it runs, with no clock.
type countdownCtx struct {
	context.Context
	left atomic.Int64
}

func newCountdown(calls int64) *countdownCtx {
	c := &countdownCtx{Context: context.Background()}
	c.left.Store(calls)
	return c
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// A long single word is merged with a bounded number of queue steps per
// byte (at most 3n, each O(log n)), for both merge kinds; a quadratic merge
// (tiktoken-go's and sugarme's) rescans all parts per merge.
func TestMergeStepsLinear(t *testing.T) {
	t.Parallel()
	tt := loadT(t, "cl100k_base").(*tiktokenTokenizer)
	hf := loadT(t, "testdata/qwen3-tokenizer.json.gz").(*hfTokenizer)
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		word := strings.Repeat("a", n)
		_, steps, err := byteRankMerge(context.Background(), word, tt.ranks, nil)
		if err != nil || steps > 3*n {
			t.Errorf("tiktoken merge of %d bytes: %d steps (want at most %d), %v", n, steps, 3*n, err)
		}
		syms := hf.bpe.initial(byteLevelString(word))
		steps, err = hf.bpe.mergeAll(context.Background(), syms)
		if err != nil || steps > 3*n {
			t.Errorf("BPE merge of %d symbols: %d steps (want at most %d), %v", n, steps, 3*n, err)
		}
	}
}

// Encoding a 1 MB word stops with the context's error once the context is
// done, in the middle of the merge, under every tokenizer kind.
func TestEncodeStopsWhenCanceled(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"cl100k_base", "o200k_base", "testdata/qwen3-tokenizer.json.gz", "testdata/llama2-style-tokenizer.json"} {
		tok := loadT(t, spec)
		// One word to the pre-tokenizer (Llama 2's layout has none: the
		// whole text is one word).
		word := strings.Repeat("a", 1<<20)
		if strings.Contains(spec, "llama2") {
			word = strings.Repeat("code ", 1<<18)
		}
		ctx := newCountdown(2) // allowed before the merge starts; the merge's first check cancels
		ids, err := tok.Encode(ctx, word)
		if !errors.Is(err, context.Canceled) || ids != nil {
			t.Errorf("%s: got %d ids, %v; want context.Canceled", spec, len(ids), err)
		}
		if ctx.left.Load() > 0 {
			t.Errorf("%s: the context was never checked", spec)
		}
	}
}

// A pre-tokenizer regex that backtracks exponentially fails the input with
// an error naming the pattern and the bound, instead of running for hours.
func TestRegexTimeBound(t *testing.T) {
	defer func(d time.Duration) { regexMatchTimeout = d }(regexMatchTimeout)
	regexMatchTimeout = 500 * time.Millisecond // not parallel: no other test runs meanwhile
	dir := t.TempDir()
	p := filepath.Join(dir, "evil.json")
	body := `{"model": {"type": "BPE", "vocab": {"a": 0, "!": 1}, "merges": []},
		"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated", "invert": false}}`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := loadHF(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tok.Encode(context.Background(), strings.Repeat("a", 40)+"!")
	if err == nil || !strings.Contains(err.Error(), `regex "(a+)+$" gave no answer within`) {
		t.Fatalf("got %v, want the regex's time bound error", err)
	}
}
