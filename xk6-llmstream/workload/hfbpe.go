package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// bpeModel is the "BPE" model of a tokenizer.json, following the Hugging Face
// tokenizers library: a word starts as one symbol per character (its
// continuing_subword_prefix / end_of_word_suffix forms where set; unknown
// characters become byte tokens <0xNN> with byte_fallback, else the unk token,
// fused when fuse_unk), then the pair of lowest merge rank, leftmost first, is
// merged until none is left. A priority queue keeps this O(n log n) in the
// word's length n (a 1 MB word has a million symbols).
type bpeModel struct {
	vocab        map[string]int
	merges       map[uint64]bpeMerge // key: left id << 32 | right id
	unk          int                 // -1: none
	prefix       string              // continuing_subword_prefix
	suffix       string              // end_of_word_suffix
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	byteIDs      [256]int // <0xNN> ids, -1 where absent

	cache pieceCache
}

type bpeMerge struct{ rank, id int32 }

type bpeJSON struct {
	Type                    string            `json:"type"`
	Dropout                 *float64          `json:"dropout"`
	UnkToken                *string           `json:"unk_token"`
	ContinuingSubwordPrefix *string           `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string           `json:"end_of_word_suffix"`
	FuseUnk                 bool              `json:"fuse_unk"`
	ByteFallback            bool              `json:"byte_fallback"`
	IgnoreMerges            bool              `json:"ignore_merges"`
	Vocab                   map[string]int    `json:"vocab"`
	Merges                  []json.RawMessage `json:"merges"`
}

func newBPE(raw json.RawMessage) (*bpeModel, error) {
	var j bpeJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if j.Type != "BPE" {
		if j.Type == "" {
			j.Type = "(none)"
		}
		return nil, fmt.Errorf("model type %s is not supported (only BPE)", j.Type)
	}
	if j.Dropout != nil && *j.Dropout != 0 {
		return nil, fmt.Errorf("model: BPE dropout %v is not supported (counts would be random)", *j.Dropout)
	}
	if len(j.Vocab) == 0 {
		return nil, fmt.Errorf("model: empty vocab")
	}
	m := &bpeModel{vocab: j.Vocab, unk: -1, fuseUnk: j.FuseUnk, byteFallback: j.ByteFallback,
		ignoreMerges: j.IgnoreMerges, merges: make(map[uint64]bpeMerge, len(j.Merges))}
	if j.ContinuingSubwordPrefix != nil {
		m.prefix = *j.ContinuingSubwordPrefix
	}
	if j.EndOfWordSuffix != nil {
		m.suffix = *j.EndOfWordSuffix
	}
	if j.UnkToken != nil {
		id, ok := j.Vocab[*j.UnkToken]
		if !ok {
			return nil, fmt.Errorf("model: unk_token %q is not in the vocab", *j.UnkToken)
		}
		m.unk = id
	}
	for b := range m.byteIDs {
		m.byteIDs[b] = -1
		if id, ok := j.Vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			m.byteIDs[b] = id
		}
	}
	for rank, r := range j.Merges {
		var a, b string
		var pair []string
		var s string
		if err := json.Unmarshal(r, &pair); err == nil {
			if len(pair) != 2 {
				return nil, fmt.Errorf("model: merge %d has %d parts, want 2", rank+1, len(pair))
			}
			a, b = pair[0], pair[1]
		} else if err := json.Unmarshal(r, &s); err == nil {
			var ok bool
			a, b, ok = strings.Cut(s, " ")
			if !ok || strings.Contains(b, " ") {
				return nil, fmt.Errorf("model: merge %d %q is not two tokens separated by one space", rank+1, s)
			}
		} else {
			return nil, fmt.Errorf("model: merge %d is neither \"a b\" nor [\"a\", \"b\"]", rank+1)
		}
		ida, oka := j.Vocab[a]
		idb, okb := j.Vocab[b]
		joined := a + strings.TrimPrefix(b, m.prefix)
		idn, okn := j.Vocab[joined]
		switch {
		case !oka:
			return nil, fmt.Errorf("model: merge %d: token %q is not in the vocab", rank+1, a)
		case !okb:
			return nil, fmt.Errorf("model: merge %d: token %q is not in the vocab", rank+1, b)
		case !okn:
			return nil, fmt.Errorf("model: merge %d: merged token %q is not in the vocab", rank+1, joined)
		}
		key := uint64(uint32(ida))<<32 | uint64(uint32(idb))
		if _, dup := m.merges[key]; !dup {
			m.merges[key] = bpeMerge{rank: int32(rank), id: int32(idn)}
		}
	}
	return m, nil
}

// bpeSymbol is one symbol of a word being merged, in a linked list over a slice.
type bpeSymbol struct {
	id         int32
	prev, next int32 // -1: none
	gone       bool
}

type bpeCand struct {
	rank, pos, id int32
}

// bpeQueue is a binary min-heap of candidates: lowest rank, then leftmost.
type bpeQueue []bpeCand

func (q bpeQueue) less(i, j int) bool {
	if q[i].rank != q[j].rank {
		return q[i].rank < q[j].rank
	}
	return q[i].pos < q[j].pos
}

func (q *bpeQueue) init() {
	for i := len(*q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

func (q *bpeQueue) push(c bpeCand) {
	*q = append(*q, c)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *bpeQueue) pop() bpeCand {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	*q = h[:n]
	q.down(0)
	return top
}

func (q bpeQueue) down(i int) {
	n := len(q)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
}

// ctxCheckEvery is how many merge steps pass between context checks.
const ctxCheckEvery = 1 << 14

// tokenize appends the ids of word to out.
func (m *bpeModel) tokenize(ctx context.Context, word string, out []int) ([]int, error) {
	if word == "" {
		return out, nil
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[word]; ok {
			return append(out, id), nil
		}
	}
	if out, ok := m.cache.appendTo(word, out); ok {
		return out, nil
	}
	syms := m.initial(word)
	if _, err := m.mergeAll(ctx, syms); err != nil {
		return out, err
	}
	start := len(out)
	for i := range syms {
		if !syms[i].gone {
			out = append(out, int(syms[i].id))
		}
	}
	m.cache.remember(word, out[start:])
	return out, nil
}

// initial is the word as one symbol per character, as the tokenizers
// library's BPE::merge_word builds it (including where a pending unknown is
// added after byte-fallback tokens).
func (m *bpeModel) initial(w string) []bpeSymbol {
	syms := make([]bpeSymbol, 0, len(w))
	add := func(id int) {
		n := int32(len(syms))
		syms = append(syms, bpeSymbol{id: int32(id), prev: n - 1, next: n + 1})
	}
	unk := -1 // a pending unknown: its id, or -1
	var buf strings.Builder
	for i, c := range w {
		s := w[i : i+utf8.RuneLen(c)] // w is valid UTF-8 (Encode made it so)
		isLast := i+len(s) == len(w)
		if (i > 0 && m.prefix != "") || (isLast && m.suffix != "") {
			buf.Reset()
			if i > 0 {
				buf.WriteString(m.prefix)
			}
			buf.WriteString(s)
			if isLast {
				buf.WriteString(m.suffix)
			}
			s = buf.String()
		}
		if id, ok := m.vocab[s]; ok {
			if unk >= 0 {
				add(unk)
				unk = -1
			}
			add(id)
			continue
		}
		if m.byteFallback && m.allBytes(s) {
			for k := 0; k < len(s); k++ {
				add(m.byteIDs[s[k]])
			}
			continue
		}
		if m.unk >= 0 {
			if unk >= 0 && !m.fuseUnk {
				add(unk)
			}
			unk = m.unk
		}
	}
	if unk >= 0 {
		add(unk)
	}
	if len(syms) > 0 {
		syms[len(syms)-1].next = -1
	}
	return syms
}

func (m *bpeModel) allBytes(s string) bool {
	for k := 0; k < len(s); k++ {
		if m.byteIDs[s[k]] < 0 {
			return false
		}
	}
	return true
}

func (m *bpeModel) merge(a, b int32) (bpeMerge, bool) {
	mg, ok := m.merges[uint64(uint32(a))<<32|uint64(uint32(b))]
	return mg, ok
}

// mergeAll merges syms in place: lowest rank first, then leftmost. Entries of
// the queue that no longer describe their position's pair are skipped. It
// returns the number of queue entries taken: at most 3n for n symbols (n-1 at
// the start, two more per merge, fewer than n merges), each O(log n).
func (m *bpeModel) mergeAll(ctx context.Context, syms []bpeSymbol) (int, error) {
	if len(syms) < 2 {
		return 0, nil
	}
	q := make(bpeQueue, 0, len(syms))
	for i := 0; i+1 < len(syms); i++ {
		if mg, ok := m.merge(syms[i].id, syms[i+1].id); ok {
			q = append(q, bpeCand{rank: mg.rank, pos: int32(i), id: mg.id})
		}
	}
	q.init()
	steps := 0
	for ; len(q) > 0; steps++ {
		if steps%ctxCheckEvery == ctxCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return steps, err
			}
		}
		top := q.pop()
		cur := &syms[top.pos]
		if cur.gone || cur.next < 0 {
			continue
		}
		right := &syms[cur.next]
		if mg, ok := m.merge(cur.id, right.id); !ok || mg.id != top.id {
			continue // stale
		}
		cur.id = top.id
		right.gone = true
		cur.next = right.next
		if cur.next >= 0 {
			syms[cur.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if mg, ok := m.merge(syms[cur.prev].id, cur.id); ok {
				q.push(bpeCand{rank: mg.rank, pos: cur.prev, id: mg.id})
			}
		}
		if cur.next >= 0 {
			if mg, ok := m.merge(cur.id, syms[cur.next].id); ok {
				q.push(bpeCand{rank: mg.rank, pos: top.pos, id: mg.id})
			}
		}
	}
	return steps, nil
}
