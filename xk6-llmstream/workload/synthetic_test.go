package workload

import (
	"testing"
)

const testHF = "testdata/qwen-style-tokenizer.json"

// testTokenizers are the tokenizers every exact-length test runs under: both
// built-in encodings and one Hugging Face tokenizer.json.
var testTokenizers = []string{"cl100k_base", "o200k_base", testHF}

func loadT(t testing.TB, spec string) Tokenizer {
	t.Helper()
	tok, err := LoadTokenizer(spec)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func mustDist(t testing.TB, s string) Dist {
	t.Helper()
	d, err := ParseDist(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func generate(t testing.TB, tok Tokenizer, s Synthetic) []Entry {
	t.Helper()
	var out []Entry
	if err := s.Generate(tok, func(e Entry) error { out = append(out, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func text(e Entry) string {
	if e.Prompt != "" {
		return e.Prompt
	}
	return e.Messages[0].Content
}

// The done-when test: 1,000 synthetic prompts under each tokenizer, every one
// re-tokenised and equal to its target.
func TestSyntheticExactLengths(t *testing.T) {
	t.Parallel()
	for _, spec := range testTokenizers {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			tok := loadT(t, spec)
			s := Synthetic{Requests: 1000, Seed: 7,
				Input:  mustDist(t, "lognormal:mean=200,sd=150,min=1,max=1500"),
				Output: mustDist(t, "uniform:min=1,max=300")}
			entries := generate(t, tok, s)
			if len(entries) != 1000 {
				t.Fatalf("got %d entries", len(entries))
			}
			lengths := map[int]bool{}
			for _, e := range entries {
				got := Count(tok, text(e))
				if got != e.InputTokensTarget || e.InputTokens != e.InputTokensTarget {
					t.Fatalf("%s: %d tokens re-tokenised, entry says %d, target %d", e.ID, got, e.InputTokens, e.InputTokensTarget)
				}
				if e.OutputTokens < 1 || e.OutputTokens > 300 || e.MaxTokens != e.OutputTokens {
					t.Fatalf("%s: output %d, max_tokens %d", e.ID, e.OutputTokens, e.MaxTokens)
				}
				lengths[got] = true
			}
			if len(lengths) < 200 {
				t.Errorf("only %d distinct prompt lengths in 1000 lognormal draws", len(lengths))
			}
		})
	}
}
