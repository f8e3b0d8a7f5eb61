package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jsonlPrompt is one line of a JSONL prompt file.
type jsonlPrompt struct {
	ID           string            `json:"id"`
	Prompt       *string           `json:"prompt"`
	Messages     []Message         `json:"messages"`
	OutputTokens int               `json:"output_tokens"`
	MaxTokens    int               `json:"max_tokens"`
	Tags         map[string]string `json:"tags"`
}

// ReadJSONL reads a file with one JSON object a line: {"prompt": "…"} or
// {"messages": [{"role": …, "content": …}, …]}, with optional "id",
// "output_tokens" (or "max_tokens") and "tags" (string values). Blank lines are
// skipped; a leading byte order mark is allowed. A line over MaxEntryBytes,
// invalid UTF-8 and anything after a line's object are errors naming the line.
func ReadJSONL(r io.Reader, name string, emit func(Prompt) error) error {
	br := bufio.NewReaderSize(newCheckedReader(r, 0), 64<<10)
	var buf []byte
	for line := 1; ; line++ {
		buf = buf[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if int64(len(buf)+len(chunk)) > MaxEntryBytes {
				return fmt.Errorf("%s:%d: line longer than the limit of %d bytes (%d MiB) per entry", name, line, MaxEntryBytes, MaxEntryBytes>>20)
			}
			buf = append(buf, chunk...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			var ie *inputError
			if errors.As(err, &ie) {
				return fmt.Errorf("%s:%d: %s", name, ie.line, ie.msg)
			}
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if b := bytes.TrimSpace(buf); len(b) > 0 {
			var j jsonlPrompt
			if err := json.Unmarshal(b, &j); err != nil {
				return fmt.Errorf("%s:%d: bad JSON line: %w", name, line, err)
			}
			p, perr := j.prompt()
			if perr != nil {
				return fmt.Errorf("%s:%d: %w", name, line, perr)
			}
			p.Line = line
			if err := emit(p); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

func (j jsonlPrompt) prompt() (Prompt, error) {
	p := Prompt{ID: j.ID, Messages: j.Messages, Tags: j.Tags, OutputTokens: j.OutputTokens}
	if p.OutputTokens == 0 {
		p.OutputTokens = j.MaxTokens
	}
	switch {
	case j.Prompt != nil && j.Messages != nil:
		return Prompt{}, errors.New(`both "prompt" and "messages": want one`)
	case j.Prompt != nil && *j.Prompt == "":
		return Prompt{}, errors.New(`empty "prompt"`)
	case j.Prompt != nil:
		p.Text = *j.Prompt
	case len(j.Messages) == 0:
		return Prompt{}, errors.New(`no "prompt" or "messages" field`)
	}
	for i, m := range j.Messages {
		if m.Role == "" {
			return Prompt{}, fmt.Errorf("message %d has no \"role\"", i+1)
		}
	}
	if p.OutputTokens < 0 {
		return Prompt{}, fmt.Errorf("output_tokens %d is negative", p.OutputTokens)
	}
	return p, nil
}

// ReadCSV reads a CSV file whose header row names a "prompt" column and
// optionally an "output_tokens" (or "max_tokens") column and an "id" column;
// every other column becomes a tag of that name. A leading byte order mark
// is allowed; invalid UTF-8 and a record over MaxEntryBytes are errors naming
// the line. As Go's encoding/csv does, a line break inside a quoted field is
// read as "\n" even where the file has "\r\n".
func ReadCSV(r io.Reader, name string, emit func(Prompt) error) error {
	in := newCSVReader(r, name)
	header, err := in.Header()
	if err != nil {
		return err
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	promptCol, ok := col["prompt"]
	if !ok {
		return fmt.Errorf("%s:1: the header has no \"prompt\" column (it has %s)", name, strings.Join(header, ", "))
	}
	outCol, hasOut := col["output_tokens"]
	if !hasOut {
		outCol, hasOut = col["max_tokens"]
	}
	idCol, hasID := col["id"]
	for {
		rec, line, err := in.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p := Prompt{Text: rec[promptCol], Line: line}
		if p.Text == "" {
			return fmt.Errorf("%s:%d: empty prompt", name, line)
		}
		if hasOut && rec[outCol] != "" {
			if p.OutputTokens, err = strconv.Atoi(rec[outCol]); err != nil || p.OutputTokens < 1 {
				return fmt.Errorf("%s:%d: %s %q is not a positive number of tokens", name, line, header[outCol], rec[outCol])
			}
		}
		if hasID {
			p.ID = rec[idCol]
		}
		for i, h := range header {
			if i != promptCol && (!hasOut || i != outCol) && (!hasID || i != idCol) {
				if p.Tags == nil {
					p.Tags = map[string]string{}
				}
				p.Tags[strings.TrimSpace(h)] = rec[i]
			}
		}
		if err := emit(p); err != nil {
			return err
		}
	}
}
