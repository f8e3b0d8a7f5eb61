package workload

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

const testHF = "testdata/qwen-style-tokenizer.json"

// testTokenizers are the tokenizers every exact-length test runs under: both
// built-in encodings, a byte-level tokenizer.json (Qwen2/Llama 3 layout) and
// the SentencePiece-style layouts (Llama 2's Prepend+Replace with byte
// fallback, and Metaspace).
var testTokenizers = []string{"cl100k_base", "o200k_base", testHF,
	"testdata/llama2-style-tokenizer.json", "testdata/metaspace-style-tokenizer.json"}

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
				Input:  mustDist(t, "lognormal:mean=100,sd=80,min=1,max=1000"),
				Output: mustDist(t, "uniform:min=1,max=300")}
			entries := generate(t, tok, s)
			if len(entries) != 1000 {
				t.Fatalf("got %d entries", len(entries))
			}
			lengths := map[int]bool{}
			for _, e := range entries {
				got := countT(t, tok, text(e))
				if got != e.InputTokensTarget || e.InputTokens != e.InputTokensTarget {
					t.Fatalf("%s: %d tokens re-tokenised, entry says %d, target %d", e.ID, got, e.InputTokens, e.InputTokensTarget)
				}
				if e.OutputTokens < 1 || e.OutputTokens > 300 || e.MaxTokens != e.OutputTokens {
					t.Fatalf("%s: output %d, max_tokens %d", e.ID, e.OutputTokens, e.MaxTokens)
				}
				lengths[got] = true
			}
			if len(lengths) < 150 {
				t.Errorf("only %d distinct prompt lengths in 1000 lognormal draws", len(lengths))
			}
		})
	}
}

func writeAll(t testing.TB, entries []Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range entries {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Same settings and seed: byte-identical files; another seed: another file.
func TestSyntheticDeterministic(t *testing.T) {
	t.Parallel()
	tok := loadT(t, "cl100k_base")
	s := Synthetic{Requests: 60, Seed: 3, Turns: 3, PrefixGroups: 4, PrefixTokens: 20,
		Input: mustDist(t, "normal:mean=60,sd=20"), Output: mustDist(t, "lognormal:mean=80,sd=40"),
		Tags: map[string]string{"suite": "det"}}
	a, b := writeAll(t, generate(t, tok, s)), writeAll(t, generate(t, tok, s))
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	s.Seed = 4
	if c := writeAll(t, generate(t, tok, s)); bytes.Equal(a, c) {
		t.Fatal("seeds 3 and 4 gave the same file")
	}
}

// G groups share a P-token prefix: same first P tokens within a group,
// different across groups, unique suffixes.
func TestSyntheticSharedPrefix(t *testing.T) {
	t.Parallel()
	for _, spec := range testTokenizers {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			tok := loadT(t, spec)
			s := Synthetic{Requests: 40, Seed: 1, PrefixGroups: 4, PrefixTokens: 50,
				Input: mustDist(t, "uniform:min=10,max=120"), Output: FixedDist(16), AsPrompt: true}
			prefixes := map[int][]int{}
			seen := map[string]bool{}
			for i, e := range generate(t, tok, s) {
				ids := encodeT(t, tok, e.Prompt)
				if len(ids) != e.InputTokensTarget || e.InputTokensTarget < 51 {
					t.Fatalf("%s: %d tokens, target %d", e.ID, len(ids), e.InputTokensTarget)
				}
				if e.PrefixGroup != i%4+1 || e.PrefixTokens != 50 || e.Messages != nil {
					t.Fatalf("%s: group %d prefix %d messages %v", e.ID, e.PrefixGroup, e.PrefixTokens, e.Messages)
				}
				if p, ok := prefixes[e.PrefixGroup]; !ok {
					prefixes[e.PrefixGroup] = ids[:50]
				} else if !slices.Equal(p, ids[:50]) {
					t.Fatalf("%s: first 50 tokens differ from its group's", e.ID)
				}
				if seen[e.Prompt] {
					t.Fatalf("%s: prompt repeated", e.ID)
				}
				seen[e.Prompt] = true
			}
			if slices.Equal(prefixes[1], prefixes[2]) {
				t.Fatal("groups 1 and 2 share a prefix")
			}
		})
	}
}

// Sessions of T turns, each turn its own exact length; later turns use
// TurnInput.
func TestSyntheticSessions(t *testing.T) {
	t.Parallel()
	tok := loadT(t, "o200k_base")
	s := Synthetic{Requests: 12, Seed: 9, Turns: 4, Input: FixedDist(300), TurnInput: FixedDist(25), Output: FixedDist(40)}
	for i, e := range generate(t, tok, s) {
		wantSession, wantTurn := i/4+1, i%4+1
		if e.Session != fmt.Sprintf("s%06d", wantSession) || e.Turn != wantTurn {
			t.Fatalf("entry %d: session %q turn %d", i, e.Session, e.Turn)
		}
		want := 25
		if wantTurn == 1 {
			want = 300
		}
		if got := countT(t, tok, text(e)); got != want || e.InputTokens != want {
			t.Fatalf("entry %d: %d tokens (entry says %d), want %d", i, got, e.InputTokens, want)
		}
	}
}

func TestSyntheticCheck(t *testing.T) {
	t.Parallel()
	ok := Synthetic{Requests: 4, Input: FixedDist(5), Output: FixedDist(5)}
	for name, mod := range map[string]func(*Synthetic){
		"no requests":         func(s *Synthetic) { s.Requests = 0 },
		"partial sessions":    func(s *Synthetic) { s.Turns = 3 },
		"groups, no length":   func(s *Synthetic) { s.PrefixGroups = 2 },
		"length, no groups":   func(s *Synthetic) { s.PrefixTokens = 2 },
		"no output lengths":   func(s *Synthetic) { s.Output = Dist{} },
		"negative turn count": func(s *Synthetic) { s.Turns = -1 },
	} {
		s := ok
		mod(&s)
		if err := s.Check(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := ok.Check(); err != nil {
		t.Errorf("valid settings: %v", err)
	}
}

func TestTextGenHeadTooLong(t *testing.T) {
	t.Parallel()
	tok := loadT(t, "cl100k_base")
	g, err := NewTextGen(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Text(context.Background(), rand.New(rand.NewPCG(1, 1)), strings.Repeat(" hello", 10), 5)
	if err == nil || !strings.Contains(err.Error(), "has 10") {
		t.Fatalf("got %v, want an error about the 10-token head", err)
	}
	if _, err := g.Text(context.Background(), rand.New(rand.NewPCG(1, 1)), "", 0); err == nil {
		t.Fatal("0 tokens: no error")
	}
}
