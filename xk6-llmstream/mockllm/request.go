package mockllm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxBodyBytes bounds a request body.
const maxBodyBytes = 16 << 20

// dialect is a wire format the mock serves. The values are the engine's
// dialect names (stream.Dialect), used in the request log.
type dialect string

const (
	openAIChat        dialect = "openai-chat"
	openAICompletions dialect = "openai-completions"
	anthropicMessages dialect = "anthropic-messages"
)

// genRequest is what the mock uses of a generation request.
type genRequest struct {
	Model           string
	Stream          bool
	MaxTokens       int // 0: not set
	IncludeUsage    bool
	ContinuousUsage bool
	IgnoreEOS       bool
	ThinkingBudget  int // Anthropic thinking.budget_tokens; 0: not set
	InputTokens     int
	// EchoWords are the words of the last message (chat, messages) or of the
	// prompt (completions), for echo mode.
	EchoWords []string

	// GeminiArray: a Gemini streamGenerateContent without alt=sse, which
	// Google answers with a JSON array rather than server-sent events.
	GeminiArray bool
}

// wireRequest is the union of the request fields of the three APIs that the
// mock reads. Unknown fields are ignored, as real servers do.
type wireRequest struct {
	Model               string          `json:"model"`
	Stream              bool            `json:"stream"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	StreamOptions       *streamOptions  `json:"stream_options"`
	Messages            []wireMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	System              json.RawMessage `json:"system"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Thinking            *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
}

type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// parseRequest decodes a request body of dialect d. Its errors name the field
// at fault and become 400 answers.
func parseRequest(d dialect, body []byte) (*genRequest, error) {
	var w wireRequest
	if err := decodeBody(body, &w); err != nil {
		return nil, err
	}
	req := &genRequest{Model: w.Model, Stream: w.Stream, IgnoreEOS: w.IgnoreEOS}
	for _, mt := range []struct {
		name string
		v    *int
	}{{"max_tokens", w.MaxTokens}, {"max_completion_tokens", w.MaxCompletionTokens}} {
		if err := setMaxTokens(req, mt.name, mt.v); err != nil {
			return nil, err
		}
	}
	if w.StreamOptions != nil {
		req.IncludeUsage = w.StreamOptions.IncludeUsage
		req.ContinuousUsage = w.StreamOptions.IncludeUsage && w.StreamOptions.ContinuousUsageStats
	}
	if w.Thinking != nil && w.Thinking.Type == "enabled" && w.Thinking.BudgetTokens > 0 {
		req.ThinkingBudget = w.Thinking.BudgetTokens
	}

	switch d {
	case openAICompletions:
		words, n, err := promptWords(w.Prompt)
		if err != nil {
			return nil, fmt.Errorf("prompt: %w", err)
		}
		req.InputTokens = len(words) + n
		req.EchoWords = words
	default:
		if len(w.System) > 0 {
			words, err := contentWords(w.System)
			if err != nil {
				return nil, fmt.Errorf("system: %w", err)
			}
			req.InputTokens += len(words)
		}
		for i, m := range w.Messages {
			words, err := contentWords(m.Content)
			if err != nil {
				return nil, fmt.Errorf("messages[%d].content: %w", i, err)
			}
			req.InputTokens += len(words)
			req.EchoWords = words
		}
	}
	return req, nil
}

// contentWords returns the words of a message content: a string, or an array
// of content parts whose "text" fields are read (other parts are skipped).
func contentWords(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return strings.Fields(s), nil
	case '[':
		var parts []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return nil, fmt.Errorf("want a string or an array of content parts: %w", err)
		}
		var words []string
		for _, p := range parts {
			words = append(words, strings.Fields(p.Text)...)
		}
		return words, nil
	}
	return nil, errors.New("want a string or an array of content parts")
}

// promptWords returns the words of a completions prompt (a string or an array
// of strings) and the number of token ids it holds (an array of integers, or an
// array of such arrays).
func promptWords(raw json.RawMessage) (words []string, ids int, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, 0, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.Fields(s), 0, nil
	}
	var ss []string
	if json.Unmarshal(raw, &ss) == nil {
		for _, s := range ss {
			words = append(words, strings.Fields(s)...)
		}
		return words, 0, nil
	}
	var tok []int64
	if json.Unmarshal(raw, &tok) == nil {
		return nil, len(tok), nil
	}
	var toks [][]int64
	if json.Unmarshal(raw, &toks) == nil {
		for _, t := range toks {
			ids += len(t)
		}
		return nil, ids, nil
	}
	return nil, 0, errors.New("want a string, an array of strings or an array of token ids")
}
