package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Synthetic generates requests with prompt lengths drawn from Input (TurnInput
// for the turns after a session's first) and output lengths from Output, all in
// tokens, with prompts of exactly the drawn length. With PrefixGroups G > 0,
// request i (or session i's first turn) belongs to group i mod G + 1, and its
// prompt starts with that group's PrefixTokens-token prefix; a drawn length at
// or below PrefixTokens becomes PrefixTokens+1, so every prompt has a unique
// suffix. With Turns T > 1, consecutive runs of T requests form a session.
type Synthetic struct {
	Requests      int
	Input, Output Dist
	TurnInput     Dist // Kind "" means Input
	Turns         int  // 0 or 1: single requests
	PrefixGroups  int
	PrefixTokens  int
	AsPrompt      bool // write "prompt" (completions APIs) instead of "messages"
	// ImageSizes, when set, give every request's (first turn's) user message
	// ImagesPerRequest generated PNG images (at least 1) of size
	// ImageSizes[i mod len] for request i; not with AsPrompt.
	ImageSizes       []ImageSize
	ImagesPerRequest int
	Tags             map[string]string
	Seed             uint64
}

// Check reports the first inconsistent setting.
func (s Synthetic) Check() error {
	switch {
	case s.Requests < 1:
		return fmt.Errorf("requests must be at least 1, got %d", s.Requests)
	case s.Input.Kind == "" || s.Output.Kind == "":
		return fmt.Errorf("input and output length distributions are required")
	case s.Turns < 0:
		return fmt.Errorf("turns must be at least 1, got %d", s.Turns)
	case s.Turns > 1 && s.Requests%s.Turns != 0:
		return fmt.Errorf("%d requests do not make whole sessions of %d turns", s.Requests, s.Turns)
	case s.PrefixGroups < 0 || s.PrefixTokens < 0:
		return fmt.Errorf("prefix groups and prefix tokens cannot be negative")
	case len(s.ImageSizes) > 0 && s.AsPrompt:
		return fmt.Errorf("images need chat messages; they cannot go with a completions prompt (--as-prompt)")
	case s.ImagesPerRequest < 0 || s.ImagesPerRequest > 16:
		return fmt.Errorf("images per request must be 0 to 16, got %d", s.ImagesPerRequest)
	case (s.PrefixGroups > 0) != (s.PrefixTokens > 0):
		return fmt.Errorf("shared prefixes need both a number of groups and a prefix length, got %d groups of %d tokens", s.PrefixGroups, s.PrefixTokens)
	}
	return nil
}

// Generate calls emit with each request in order. The same settings and seed
// give the same entries.
func (s Synthetic) Generate(tok Tokenizer, emit func(Entry) error) error {
	return s.GenerateContext(context.Background(), tok, emit)
}

// GenerateContext is Generate that stops when ctx is done. Prompts are
// written on GOMAXPROCS goroutines and emitted in order.
func (s Synthetic) GenerateContext(ctx context.Context, tok Tokenizer, emit func(Entry) error) error {
	if err := s.Check(); err != nil {
		return err
	}
	gen, err := NewTextGen(ctx, tok)
	if err != nil {
		return err
	}
	prefixes := make([]string, s.PrefixGroups)
	for g := range prefixes {
		rng := rand.New(rand.NewPCG(s.Seed, 1<<63|uint64(g)))
		if prefixes[g], err = gen.Text(ctx, rng, "", s.PrefixTokens); err != nil {
			return fmt.Errorf("prefix of group %d: %w", g+1, err)
		}
	}
	return inOrder(ctx, s.Requests, runtime.GOMAXPROCS(0), func(ctx context.Context, i int) (Entry, error) {
		e, err := s.entry(ctx, i, tok, gen, prefixes)
		if err != nil {
			return Entry{}, fmt.Errorf("request %d: %w", i+1, err)
		}
		return e, nil
	}, emit)
}

// inOrder runs build(i) for i in [0, n) on workers goroutines and passes the
// results to emit in order of i, stopping at the first error in that order.
func inOrder(ctx context.Context, n, workers int, build func(context.Context, int) (Entry, error), emit func(Entry) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		e    Entry
		err  error
		done chan struct{}
	}
	results := make(chan *result, 4*workers)
	jobs := make(chan func(), 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j()
			}
		}()
	}
	go func() {
		defer close(results)
		defer close(jobs)
		for i := range n {
			r := &result{done: make(chan struct{})}
			select {
			case jobs <- func() { r.e, r.err = build(ctx, i); close(r.done) }:
			case <-ctx.Done():
				return
			}
			select {
			case results <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for r := range results {
		if err != nil {
			continue
		}
		<-r.done
		if err = r.err; err == nil {
			err = emit(r.e)
		}
		if err != nil {
			cancel()
		}
	}
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

func (s Synthetic) entry(ctx context.Context, i int, tok Tokenizer, gen *TextGen, prefixes []string) (Entry, error) {
	rng := rand.New(rand.NewPCG(s.Seed, uint64(i)))
	e := Entry{V: Version, ID: fmt.Sprintf("syn-%06d", i+1), Tokenizer: tok.Name(), Tags: s.Tags}
	input, unit := s.Input, i
	if s.Turns > 1 {
		unit = i / s.Turns
		e.Session, e.Turn = fmt.Sprintf("s%06d", unit+1), i%s.Turns+1
		if e.Turn > 1 && s.TurnInput.Kind != "" {
			input = s.TurnInput
		}
	}
	target := input.Sample(rng)
	head := ""
	if len(prefixes) > 0 && e.Turn <= 1 {
		g := unit % len(prefixes)
		head, e.PrefixGroup, e.PrefixTokens = prefixes[g], g+1, s.PrefixTokens
		target = max(target, s.PrefixTokens+1)
	}
	text, err := gen.Text(ctx, rng, head, target)
	if err != nil {
		return Entry{}, err
	}
	e.InputTokens, e.InputTokensTarget = target, target
	e.OutputTokens = s.Output.Sample(rng)
	e.MaxTokens = e.OutputTokens
	if s.AsPrompt {
		e.Prompt = text
	} else {
		e.Messages = []Message{{Role: "user", Content: text}}
		if len(s.ImageSizes) > 0 && e.Turn <= 1 {
			size := s.ImageSizes[i%len(s.ImageSizes)]
			for k := range max(s.ImagesPerRequest, 1) {
				u, err := PNGDataURL(size.W, size.H, s.Seed^uint64(i)<<8^uint64(k))
				if err != nil {
					return Entry{}, err
				}
				e.Messages[0].Images = append(e.Messages[0].Images, Image{URL: u, Width: size.W, Height: size.H})
			}
		}
	}
	return e, nil
}
