package workload

import (
	"bufio"
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
// Each conversation gives one prompt: its first human turn, with the answer
// that follows it (whose token count becomes the output length). Conversations
// without such a pair (empty, or one turn) are skipped and counted in Skipped.
// A leading byte order mark is allowed; invalid UTF-8, a conversation over
// MaxEntryBytes and anything after the array are errors.
type ShareGPT struct {
	R       io.Reader
	Name    string // for errors
	Skipped int
}

// Read passes each prompt to emit and stops at emit's first error.
func (s *ShareGPT) Read(emit func(Prompt) error) error {
	cr := newCheckedReader(s.R, MaxEntryBytes)
	lr := &lineReader{r: cr}
	dec := json.NewDecoder(lr)
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		if err != nil && s.isInputErr(err) {
			return s.inputErr(err)
		}
		return fmt.Errorf("%s:%d: not a ShareGPT file: want a JSON array of conversations", s.Name, lr.line(dec.InputOffset()))
	}
	for n := 1; dec.More(); n++ {
		cr.Mark(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return s.syntaxError(lr, dec, err)
		}
		start := dec.InputOffset() - int64(len(raw))
		if int64(len(raw)) > MaxEntryBytes {
			return fmt.Errorf("%s:%d: conversation %d: %s", s.Name, lr.line(start), n, tooLong(MaxEntryBytes))
		}
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
	// Only white space may follow the array.
	off := dec.InputOffset()
	cr.Mark(off)
	rest := bufio.NewReader(io.MultiReader(dec.Buffered(), lr))
	for ; ; off++ {
		b, err := rest.ReadByte()
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return s.syntaxError(lr, dec, err)
		case b != ' ' && b != '\t' && b != '\n' && b != '\r':
			return fmt.Errorf("%s:%d: trailing data after the array of conversations", s.Name, lr.line(off))
		}
	}
}

func (s *ShareGPT) isInputErr(err error) bool {
	var ie *inputError
	return errors.As(err, &ie)
}

func (s *ShareGPT) inputErr(err error) error {
	var ie *inputError
	errors.As(err, &ie)
	return fmt.Errorf("%s:%d: %s", s.Name, ie.line, ie.msg)
}

func (s *ShareGPT) syntaxError(lr *lineReader, dec *json.Decoder, err error) error {
	if s.isInputErr(err) {
		return s.inputErr(err)
	}
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
			return Prompt{ID: id, Text: *turns[i].Value, Answer: turns[i+1].Value}, true, nil
		}
	}
	return Prompt{}, false, nil
}

func isHuman(from string) bool { return from == "human" || from == "user" }
