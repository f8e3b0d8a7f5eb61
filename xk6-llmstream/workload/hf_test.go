package workload

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The Qwen-style tokenizer.json loads offline and round-trips text; its Split
// regex's look-ahead (\s+(?!\S)) leaves the last space of a run to the word
// after it, as Hugging Face tokenizers does.
func TestHFTokenizer(t *testing.T) {
	t.Parallel()
	tok := loadT(t, testHF)
	s := "Hello   world, it's 2025!\n\n\tfunc main() {}"
	if got := tok.Decode(encodeT(t, tok, s)); got != s {
		t.Fatalf("round trip: %q", got)
	}
	space := encodeT(t, tok, " ")
	world := encodeT(t, tok, " world")
	if len(space) != 1 {
		t.Fatalf("a space is %d tokens", len(space))
	}
	want := slices.Concat(space, space, world)
	if got := encodeT(t, tok, "   world"); !slices.Equal(got, want) {
		t.Errorf("\"   world\" = %v, want %v (two spaces, then \" world\")", got, want)
	}
	if tok.VocabSize() < 3000 {
		t.Errorf("vocab size %d", tok.VocabSize())
	}
}

func TestLoadTokenizerErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ spec, want string }{
		{"p50k_nope", `unknown tokenizer "p50k_nope"`},
		{write("bad.json", "{not json"), "bad.json: not a tokenizer.json"},
		{write("nomodel.json", `{"version": "1.0"}`), `no "model" section`},
		{write("badsplit.json", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
			"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated", "invert": false}}`), "pre_tokenizer Split: regex \"(\""},
		{write("wordpiece.json", `{"model": {"type": "WordPiece", "vocab": {"a": 0}}}`), "model type WordPiece is not supported"},
		{write("badmerge.json", `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a  b"]}}`), `merge 1 "a  b" is not two tokens`},
		{write("unknownpre.json", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "UnicodeScripts"}}`), "pre_tokenizer UnicodeScripts is not supported"},
		{write("precompiled.json", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "normalizer": {"type": "Precompiled"}}`), "normalizer Precompiled is not supported"},
	} {
		if _, err := LoadTokenizer(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.spec, err, c.want)
		}
	}
}

// encodeT encodes s with tok, failing the test on an error.
func encodeT(t testing.TB, tok Tokenizer, s string) []int {
	t.Helper()
	ids, err := tok.Encode(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// countT is the token count of s under tok, failing the test on an error.
func countT(t testing.TB, tok Tokenizer, s string) int { return len(encodeT(t, tok, s)) }
