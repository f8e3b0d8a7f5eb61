package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxLineBytes is the longest line a JSONL prompt file may have.
const MaxLineBytes = 64 << 20

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
// skipped.
func ReadJSONL(r io.Reader, name string, emit func(Prompt) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLineBytes)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var j jsonlPrompt
		if err := json.Unmarshal(b, &j); err != nil {
			return fmt.Errorf("%s:%d: bad JSON line: %w", name, line, err)
		}
		p, err := j.prompt()
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		p.Line = line
		if err := emit(p); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
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
// every other column becomes a tag of that name.
func ReadCSV(r io.Reader, name string, emit func(Prompt) error) error {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("%s:1: no CSV header row: %w", name, err)
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
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: bad CSV row: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
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
