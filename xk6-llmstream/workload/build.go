package workload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Prompt is one request as an input file gives it, before token counting.
type Prompt struct {
	ID           string    // the file's own id, if it has one
	Text         string    // a plain prompt, or
	Messages     []Message // a conversation
	OutputTokens int       // the output length the file asks for; 0 if none
	// Answer is a recorded answer (ShareGPT) whose token count becomes the
	// output length; a prompt whose answer has no tokens is skipped.
	Answer *string
	Tags   map[string]string
	Line   int // the line where the prompt starts
}

// Builder turns prompts read from a file into entries: it counts input tokens,
// draws an output length from Output for prompts that give none, and stops
// after Requests entries (0: all). Token counting runs on Workers goroutines
// (0: GOMAXPROCS); entries come out in input order all the same.
type Builder struct {
	Tok      Tokenizer
	Name     string // the input's name, for errors and ids
	Output   Dist
	Requests int
	AsPrompt bool
	Tags     map[string]string // added to every entry, over the file's own
	Seed     uint64
	Workers  int
}

// BuildStats is what a build made.
type BuildStats struct {
	Entries int
	Skipped int // prompts whose answer has no tokens
}

// errEnough stops a reader once the builder has its entries.
var errEnough = errors.New("workload: enough entries")

// counted is a prompt with its token counts, made by a worker.
type counted struct {
	p      Prompt
	input  int
	answer int
	err    error
	done   chan struct{}
}

// Build reads prompts with read and passes entries to emit, in input order.
// The first error in input order (a bad prompt, a tokenizer failure, ctx
// being done) ends it.
func (b Builder) Build(ctx context.Context, read func(emit func(Prompt) error) error, emit func(Entry) error) (BuildStats, error) {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := b.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *counted, 4*workers)
	order := make(chan *counted, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				c.input, c.answer, c.err = b.count(ctx, c.p)
				close(c.done)
			}
		}()
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		readErr = read(func(p Prompt) error {
			if err := ctx.Err(); err != nil {
				return errEnough
			}
			c := &counted{p: p, done: make(chan struct{})}
			select {
			case jobs <- c:
			case <-ctx.Done():
				return errEnough
			}
			select {
			case order <- c:
			case <-ctx.Done():
				return errEnough
			}
			return nil
		})
	}()
	var st BuildStats
	var err error
	for c := range order {
		if err != nil || b.Requests > 0 && st.Entries >= b.Requests {
			continue // drain: the reader and the workers stop on cancel
		}
		<-c.done
		if c.err != nil {
			err = c.err
			cancel()
			continue
		}
		if c.p.Answer != nil && c.answer == 0 {
			st.Skipped++
			continue
		}
		var e Entry
		if e, err = b.entry(st.Entries, c); err == nil {
			if err = emit(e); err == nil {
				st.Entries++
			}
		}
		if err != nil || b.Requests > 0 && st.Entries >= b.Requests {
			cancel()
		}
	}
	wg.Wait()
	switch {
	case err != nil:
		return st, err
	case parent.Err() != nil:
		return st, parent.Err()
	case readErr != nil && !errors.Is(readErr, errEnough):
		return st, readErr
	}
	return st, nil
}

// count tokenizes a prompt's texts and its answer.
func (b Builder) count(ctx context.Context, p Prompt) (input, answer int, err error) {
	texts := []string{p.Text}
	if len(p.Messages) > 0 {
		texts = texts[:0]
		for _, m := range p.Messages {
			texts = append(texts, m.Content)
		}
	}
	for _, t := range texts {
		n, err := Count(ctx, b.Tok, t)
		if err != nil {
			return 0, 0, fmt.Errorf("%s:%d: %w", b.Name, p.Line, err)
		}
		input += n
	}
	if p.Answer != nil {
		if answer, err = Count(ctx, b.Tok, *p.Answer); err != nil {
			return 0, 0, fmt.Errorf("%s:%d: the answer: %w", b.Name, p.Line, err)
		}
	}
	return input, answer, nil
}

func (b Builder) entry(i int, c *counted) (Entry, error) {
	p := c.p
	e := Entry{V: Version, ID: p.ID, Tokenizer: b.Tok.Name(), OutputTokens: p.OutputTokens, InputTokens: c.input}
	if p.Answer != nil {
		e.OutputTokens = c.answer
	}
	if e.ID == "" {
		e.ID = fmt.Sprintf("%06d", i+1)
	}
	switch {
	case len(p.Messages) > 0 && b.AsPrompt:
		if len(p.Messages) != 1 {
			return Entry{}, fmt.Errorf("%s:%d: %d messages cannot be written as one completions prompt", b.Name, p.Line, len(p.Messages))
		}
		e.Prompt = p.Messages[0].Content
	case len(p.Messages) > 0:
		e.Messages = p.Messages
	case b.AsPrompt:
		e.Prompt = p.Text
	default:
		e.Messages = []Message{{Role: "user", Content: p.Text}}
	}
	if e.OutputTokens == 0 {
		if b.Output.Kind == "" {
			return Entry{}, fmt.Errorf("%s:%d: no output length in the file and none given", b.Name, p.Line)
		}
		e.OutputTokens = b.Output.Sample(rand.New(rand.NewPCG(b.Seed, uint64(i))))
	}
	e.MaxTokens = e.OutputTokens
	if len(p.Tags)+len(b.Tags) > 0 {
		e.Tags = maps.Clone(p.Tags)
		if e.Tags == nil {
			e.Tags = map[string]string{}
		}
		maps.Copy(e.Tags, b.Tags)
	}
	return e, nil
}
