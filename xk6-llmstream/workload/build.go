package workload

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
)

// Prompt is one request as an input file gives it, before token counting.
type Prompt struct {
	ID           string    // the file's own id, if it has one
	Text         string    // a plain prompt, or
	Messages     []Message // a conversation
	OutputTokens int       // the output length the file asks for; 0 if none
	Tags         map[string]string
	Line         int // the line where the prompt starts
}

// Builder turns prompts read from a file into entries: it counts input tokens,
// draws an output length from Output for prompts that give none, and stops
// after Requests entries (0: all).
type Builder struct {
	Tok      Tokenizer
	Name     string // the input's name, for errors and ids
	Output   Dist
	Requests int
	AsPrompt bool
	Tags     map[string]string // added to every entry, over the file's own
	Seed     uint64
}

// errEnough stops a reader once the builder has its entries.
var errEnough = errors.New("workload: enough entries")

// Build reads prompts with read and passes entries to emit. It returns the
// number of entries made.
func (b Builder) Build(read func(emit func(Prompt) error) error, emit func(Entry) error) (int, error) {
	n := 0
	err := read(func(p Prompt) error {
		if b.Requests > 0 && n >= b.Requests {
			return errEnough
		}
		e, err := b.entry(n, p)
		if err != nil {
			return err
		}
		n++
		return emit(e)
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	return n, err
}

func (b Builder) entry(i int, p Prompt) (Entry, error) {
	e := Entry{V: Version, ID: p.ID, Tokenizer: b.Tok.Name(), OutputTokens: p.OutputTokens}
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
	e.InputTokens = Count(b.Tok, e.Prompt)
	for _, m := range e.Messages {
		e.InputTokens += Count(b.Tok, m.Content)
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
