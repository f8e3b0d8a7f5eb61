package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
)

// TraceBuilder turns a trace's requests into entries: prompts of exactly
// the request's input length under Tok, its output length, and its send time
// (AtMS). Equal hash ids become equal text: a request whose first k whole
// blocks carry ids seen before starts with the same k×BlockTokens tokens of
// text as the requests they were seen in, so a server's prefix cache sees the
// trace's reuse. The last, partial block and the tokens past the hash ids are
// the request's own.
type TraceBuilder struct {
	Tok         Tokenizer
	Name        string // the input's name, for errors
	BlockTokens int    // tokens per hash block (0: hash ids are ignored)
	Requests    int    // stop after this many entries (0: all)
	AsPrompt    bool
	Tags        map[string]string
	Seed        uint64

	ctx    context.Context // of the Build running
	gen    *TextGen
	blocks map[int64]traceBlock
}

// traceBlock is where a hash block was first seen. Its text is not kept: it
// is a function of the seed and the id, made again when the id comes again,
// so memory grows with the number of ids, not with their text.
type traceBlock struct {
	pos    int   // its index in hash_ids
	parent int64 // the id before it (for pos > 0)
}

// Build reads the trace with read and calls emit with each entry; it returns
// the number of entries.
// Making the prompts stops with ctx's error when ctx is done.
func (b *TraceBuilder) Build(ctx context.Context, read func(emit func(TraceRequest) error) error, emit func(Entry) error) (int, error) {
	gen, err := NewTextGen(ctx, b.Tok)
	if err != nil {
		return 0, err
	}
	b.ctx, b.gen, b.blocks = ctx, gen, map[int64]traceBlock{}
	n := 0
	errStop := fmt.Errorf("enough requests")
	err = read(func(q TraceRequest) error {
		if b.Requests > 0 && n >= b.Requests {
			return errStop
		}
		e, err := b.entry(n, q)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", b.Name, q.Line, err)
		}
		n++
		return emit(e)
	})
	if err == errStop {
		err = nil
	}
	return n, err
}

func (b *TraceBuilder) entry(i int, q TraceRequest) (Entry, error) {
	head, whole, err := b.prefix(q)
	if err != nil {
		return Entry{}, err
	}
	rng := rand.New(rand.NewPCG(b.Seed, uint64(i)))
	text, err := b.gen.Text(b.ctx, rng, head, q.Input)
	if err != nil {
		return Entry{}, err
	}
	at := q.AtMS
	e := Entry{V: Version, ID: fmt.Sprintf("trace-%06d", i+1), Tokenizer: b.Tok.Name(),
		MaxTokens: q.Output, OutputTokens: q.Output, InputTokens: q.Input, InputTokensTarget: q.Input,
		PrefixTokens: whole * b.BlockTokens, AtMS: &at}
	if len(b.Tags)+len(q.Tags) > 0 || q.Session != "" {
		e.Tags = map[string]string{}
		for k, v := range q.Tags {
			e.Tags[k] = v
		}
		if q.Session != "" {
			e.Tags["trace_session"] = q.Session
			if q.Turn > 0 {
				e.Tags["turn"] = fmt.Sprint(q.Turn)
			}
		}
		for k, v := range b.Tags {
			e.Tags[k] = v
		}
	}
	if b.AsPrompt {
		e.Prompt = text
	} else {
		e.Messages = []Message{{Role: "user", Content: text}}
	}
	return e, nil
}

// prefix is the text of the request's whole hash blocks and their number.
// The first block is exact text of BlockTokens tokens, a later one
// BlockTokens of the tokenizer's single-token " word"s; each is drawn from
// a generator seeded by the seed and the id alone.
func (b *TraceBuilder) prefix(q TraceRequest) (string, int, error) {
	if b.BlockTokens <= 0 || len(q.HashIDs) == 0 {
		return "", 0, nil
	}
	whole := min(len(q.HashIDs), q.Input/b.BlockTokens)
	var sb strings.Builder
	for pos, id := range q.HashIDs[:whole] {
		var parent int64
		if pos > 0 {
			parent = q.HashIDs[pos-1]
		}
		if blk, ok := b.blocks[id]; !ok {
			b.blocks[id] = traceBlock{pos: pos, parent: parent}
		} else if blk.pos != pos || blk.parent != parent {
			return "", 0, fmt.Errorf("hash id %d is block %d here but was block %d (after id %d) before: equal ids must name equal prefixes", id, pos+1, blk.pos+1, blk.parent)
		}
		rng := rand.New(rand.NewPCG(b.Seed^0x9e3779b97f4a7c15, uint64(id)))
		if pos == 0 {
			t, err := b.gen.Text(b.ctx, rng, "", b.BlockTokens)
			if err != nil {
				return "", 0, fmt.Errorf("block of hash id %d: %w", id, err)
			}
			sb.WriteString(t)
			continue
		}
		for range b.BlockTokens {
			sb.WriteString(b.gen.word(rng))
		}
	}
	return sb.String(), whole, nil
}
