package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
)

// TextGen writes text of an exact token count under a tokenizer. It draws from
// the tokenizer's own single-token words (" word", lower-case letters), joins
// them, re-tokenises the whole text and adds, drops or swaps words until the
// count is exact: merges across word boundaries and a first word without its
// space are settled by the re-count, not assumed away.
type TextGen struct {
	tok   Tokenizer
	words []string
}

// minWords is the fewest single-token words a tokenizer must have for
// TextGen to make varied text.
const minWords = 64

// maxAdjust bounds the re-tokenise-and-adjust rounds of one text.
const maxAdjust = 64

// NewTextGen finds tok's single-token words, in token-id order: words w
// where " w" encodes as one token (byte-level vocabularies: "Ġw"), or where w
// alone and each w of "w w" are one token (SentencePiece-style vocabularies,
// which write a word's space as "▁" and prepend one at the start of text).
func NewTextGen(ctx context.Context, tok Tokenizer) (*TextGen, error) {
	g := &TextGen{tok: tok}
	seen := map[string]bool{}
	for id := range tok.VocabSize() {
		w := strings.TrimSpace(tok.Decode([]int{id}))
		if !isPlainWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		ok, err := g.singleToken(ctx, w)
		if err != nil {
			return nil, err
		}
		if ok {
			g.words = append(g.words, " "+w)
		}
	}
	if len(g.words) < minWords {
		return nil, fmt.Errorf("tokenizer %s has only %d single-token words (need %d) to write prompts with", tok.Name(), len(g.words), minWords)
	}
	return g, nil
}

func (g *TextGen) singleToken(ctx context.Context, w string) (bool, error) {
	if n, err := Count(ctx, g.tok, " "+w); err != nil || n == 1 {
		return n == 1, err
	}
	if n, err := Count(ctx, g.tok, w); err != nil || n != 1 {
		return false, err
	}
	n, err := Count(ctx, g.tok, w+" "+w)
	return n == 2, err
}

// Words is the number of single-token words TextGen draws from.
func (g *TextGen) Words() int { return len(g.words) }

func isPlainWord(w string) bool {
	if len(w) < 3 || len(w) > 12 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// Text returns head followed by generated words, whose token count is exactly
// total. head may be empty; it fails when head alone is longer than total.
func (g *TextGen) Text(ctx context.Context, rng *rand.Rand, head string, total int) (string, error) {
	if total < 1 {
		return "", fmt.Errorf("text of %d tokens: want at least 1", total)
	}
	words := make([]string, 0, total)
	var b strings.Builder
	for round := range maxAdjust {
		b.Reset()
		b.WriteString(head)
		for i, w := range words {
			if i == 0 && head == "" {
				w = w[1:] // no leading space at the very start
			}
			b.WriteString(w)
		}
		text := b.String()
		n, err := Count(ctx, g.tok, text)
		if err != nil {
			return "", err
		}
		switch {
		case n == total:
			return text, nil
		case n < total:
			for range total - n {
				words = append(words, g.word(rng))
			}
		case len(words) == 0:
			return "", fmt.Errorf("text of %d tokens: the shared part alone has %d", total, n)
		case round >= maxAdjust/4:
			// Dropping words keeps overshooting: draw a new last word instead.
			words[len(words)-1] = g.word(rng)
		default:
			words = words[:len(words)-min(n-total, len(words))]
		}
	}
	return "", fmt.Errorf("no text of exactly %d tokens under %s after %d rounds", total, g.tok.Name(), maxAdjust)
}

func (g *TextGen) word(rng *rand.Rand) string { return g.words[rng.IntN(len(g.words))] }
