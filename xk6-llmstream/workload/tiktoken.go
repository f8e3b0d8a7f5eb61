package workload

import (
	"context"
	"fmt"
	"strings"

	"github.com/dlclark/regexp2"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktokenEncoding describes a built-in OpenAI encoding: its split pattern
// (OpenAI's tiktoken definition) and the number of ordinary tokens.
type tiktokenEncoding struct {
	pattern string
	vocab   int
}

// tiktokenVocab holds the built-in OpenAI encodings.
var tiktokenVocab = map[string]tiktokenEncoding{
	"cl100k_base": {
		pattern: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		vocab:   100256,
	},
	"o200k_base": {
		pattern: strings.Join([]string{
			`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
			`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
			`\p{N}{1,3}`,
			` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
			`\s*[\r\n]+`,
			`\s+(?!\S)`,
			`\s+`,
		}, "|"),
		vocab: 199998,
	},
}

// tiktokenTokenizer counts with an OpenAI encoding. The rank files are
// embedded in the binary by github.com/pkoukk/tiktoken-go-loader, so loading
// needs no network. Each piece of the split is merged as tiktoken does (the
// adjacent pair whose joined bytes have the lowest rank, leftmost first),
// with a priority queue, so a long piece costs O(n log n), not O(n²).
type tiktokenTokenizer struct {
	name   string
	re     *regexp2.Regexp
	ranks  map[string]int
	decode []string // by rank

	cache pieceCache
}

func loadTiktoken(name string) (Tokenizer, error) {
	enc := tiktokenVocab[name]
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("loading encoding %s: %w", name, err)
	}
	re, err := regexp2.Compile(enc.pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", name, err)
	}
	re.MatchTimeout = regexMatchTimeout
	t := &tiktokenTokenizer{name: name, re: re, ranks: ranks, decode: make([]string, enc.vocab)}
	for s, r := range ranks {
		if r < 0 || r >= enc.vocab {
			return nil, fmt.Errorf("encoding %s: rank %d out of range", name, r)
		}
		t.decode[r] = s
	}
	return t, nil
}

func (t *tiktokenTokenizer) Name() string { return t.name }

// Encode treats special-token text as ordinary text, as APIs do with user
// content.
func (t *tiktokenTokenizer) Encode(ctx context.Context, text string) ([]int, error) {
	spans, err := regexSpansCtx(ctx, t.re, text)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", t.name, err)
	}
	out := make([]int, 0, len(text)/3)
	for _, s := range spans {
		if !s.match || s.end == s.start {
			continue
		}
		if out, err = t.piece(ctx, text[s.start:s.end], out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *tiktokenTokenizer) piece(ctx context.Context, p string, out []int) ([]int, error) {
	if r, ok := t.ranks[p]; ok {
		return append(out, r), nil
	}
	if out, ok := t.cache.appendTo(p, out); ok {
		return out, nil
	}
	start := len(out)
	out, _, err := byteRankMerge(ctx, p, t.ranks, out)
	if err != nil {
		return out, err
	}
	t.cache.remember(p, out[start:])
	return out, nil
}

// rankPart is one part of a piece being merged: bytes [start, next part's
// start), in a linked list over a slice.
type rankPart struct {
	start      int
	prev, next int32 // -1: none
	gone       bool
}

// byteRankMerge appends the ranks of p's parts after tiktoken's merge: the
// adjacent pair whose joined bytes have the lowest rank, leftmost first,
// until no joined pair has a rank. It also returns the number of queue
// entries taken: at most 3n for n bytes, each O(log n).
func byteRankMerge(ctx context.Context, p string, ranks map[string]int, out []int) ([]int, int, error) {
	parts := make([]rankPart, len(p))
	for i := range parts {
		parts[i] = rankPart{start: i, prev: int32(i - 1), next: int32(i + 1)}
	}
	parts[len(parts)-1].next = -1
	end := func(i int32) int {
		if n := parts[i].next; n >= 0 {
			return parts[n].start
		}
		return len(p)
	}
	// A candidate joins part pos with its next part, ending at byte end.
	q := make(bpeQueue, 0, len(p))
	cand := func(pos int32) (bpeCand, bool) {
		n := parts[pos].next
		if n < 0 {
			return bpeCand{}, false
		}
		r, ok := ranks[p[parts[pos].start:end(n)]]
		return bpeCand{rank: int32(r), pos: pos, id: int32(end(n))}, ok
	}
	for i := range int32(len(parts) - 1) {
		if c, ok := cand(i); ok {
			q = append(q, c)
		}
	}
	q.init()
	steps := 0
	for ; len(q) > 0; steps++ {
		if steps%ctxCheckEvery == ctxCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return out, steps, err
			}
		}
		top := q.pop()
		cur := &parts[top.pos]
		if cur.gone || cur.next < 0 || end(cur.next) != int(top.id) {
			continue // stale: one of the two parts has changed
		}
		right := &parts[cur.next]
		right.gone = true
		cur.next = right.next
		if cur.next >= 0 {
			parts[cur.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if c, ok := cand(cur.prev); ok {
				q.push(c)
			}
		}
		if c, ok := cand(top.pos); ok {
			q.push(c)
		}
	}
	for i := int32(0); i >= 0; i = parts[i].next {
		r, ok := ranks[p[parts[i].start:end(i)]]
		if !ok {
			return out, steps, fmt.Errorf("byte %#x has no rank", p[parts[i].start])
		}
		out = append(out, r)
	}
	return out, steps, nil
}

func (t *tiktokenTokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id >= 0 && id < len(t.decode) {
			b.WriteString(t.decode[id])
		}
	}
	return b.String()
}

func (t *tiktokenTokenizer) VocabSize() int { return tiktokenVocab[t.name].vocab }
