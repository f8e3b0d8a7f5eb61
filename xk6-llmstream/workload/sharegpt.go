package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// shareGPTConversation is one element of a ShareGPT-format file.
type shareGPTConversation struct {
	ID            string          `json:"id"`
	Conversations *[]shareGPTTurn `json:"conversations"`
}

type shareGPTTurn struct {
	From  string  `json:"from"`
	Value *string `json:"value"`
}

// ShareGPT reads a ShareGPT-format file: a JSON array of
// {"id": …, "conversations": [{"from": "human", "value": …}, {"from": "gpt", …}, …]}.
// Each conversation gives one prompt: its first human turn, with the token
// count of the answer that follows it as the output length. Conversations
// without such a pair (empty, or one turn) are skipped and counted in Skipped.
type ShareGPT struct {
	R       io.Reader
	Name    string // for errors
	Tok     Tokenizer
	Skipped int
}

// Read passes each prompt to emit and stops at emit's first error.
func (s *ShareGPT) Read(emit func(Prompt) error) error {
	lr := &lineReader{r: s.R}
	dec := json.NewDecoder(lr)
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return fmt.Errorf("%s:%d: not a ShareGPT file: want a JSON array of conversations", s.Name, lr.line(dec.InputOffset()))
	}
	for n := 1; dec.More(); n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return s.syntaxError(lr, dec, err)
		}
		start := dec.InputOffset() - int64(len(raw))
		p, ok, err := s.prompt(raw, n)
		if err != nil {
			return fmt.Errorf("%s:%d: conversation %d: %w", s.Name, lr.line(start), n, err)
		}
		if !ok {
			s.Skipped++
			continue
		}
		p.Line = lr.line(start)
		if err := emit(p); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return s.syntaxError(lr, dec, err)
	}
	return nil
}

func (s *ShareGPT) syntaxError(lr *lineReader, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%s:%d: unexpected end of file", s.Name, lr.line(lr.off))
	}
	return fmt.Errorf("%s:%d: bad JSON: %w", s.Name, lr.line(off), err)
}

// prompt picks the first human turn and the answer after it.
func (s *ShareGPT) prompt(raw json.RawMessage, n int) (Prompt, bool, error) {
	var c shareGPTConversation
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&c); err != nil {
		return Prompt{}, false, fmt.Errorf("not a conversation object: %w", err)
	}
	if c.Conversations == nil {
		return Prompt{}, false, fmt.Errorf("no \"conversations\" field")
	}
	turns := *c.Conversations
	for i, t := range turns {
		if t.Value == nil {
			return Prompt{}, false, fmt.Errorf("turn %d has no \"value\" field", i+1)
		}
	}
	for i := 0; i+1 < len(turns); i++ {
		if isHuman(turns[i].From) && !isHuman(turns[i+1].From) {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("sharegpt-%d", n)
			}
			out := Count(s.Tok, *turns[i+1].Value)
			if out == 0 {
				return Prompt{}, false, nil
			}
			return Prompt{ID: id, Text: *turns[i].Value, OutputTokens: out}, true, nil
		}
	}
	return Prompt{}, false, nil
}

func isHuman(from string) bool { return from == "human" || from == "user" }
