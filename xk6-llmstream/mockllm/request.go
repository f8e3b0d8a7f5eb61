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
	MinTokens       int // vLLM/SGLang min_tokens; 0: not set
	ThinkingBudget  int // Anthropic thinking.budget_tokens; 0: not set
	// InputTokens is the prompt's length in words; the Server recounts it
	// with Config.Tokenizer when one is set (see promptTokens).
	InputTokens int
	// Texts are the prompt's texts in order (system, then every message's
	// content, or the completions prompt); IDs holds a completions prompt
	// given as token ids.
	Texts []string
	IDs   []int64
	// EchoWords are the words of the last message (chat, messages) or of the
	// prompt (completions), for echo mode.
	EchoWords []string

	// Tools are the tools the request offers; ToolResults counts the tool
	// results in its conversation (tools.go).
	Tools       []toolSpec
	ToolResults int

	// GeminiArray: a Gemini streamGenerateContent without alt=sse, which
	// Google answers with a JSON array rather than server-sent events.
	GeminiArray bool

	// Images are the prompt's images (image.go); ImageTokens their tokens,
	// included in InputTokens.
	Images      []promptImage
	ImageTokens int
	// Format is the structured output the request asks for (nil: none).
	Format *outputFormat
}

// wireRequest is the union of the request fields of the three APIs that the
// mock reads. Unknown fields are ignored, as real servers do.
type wireRequest struct {
	Model               string            `json:"model"`
	Stream              bool              `json:"stream"`
	MaxTokens           *int              `json:"max_tokens"`
	MaxCompletionTokens *int              `json:"max_completion_tokens"`
	StreamOptions       *streamOptions    `json:"stream_options"`
	Messages            []wireMessage     `json:"messages"`
	Tools               []json.RawMessage `json:"tools"`
	Prompt              json.RawMessage   `json:"prompt"`
	System              json.RawMessage   `json:"system"`
	IgnoreEOS           bool              `json:"ignore_eos"`
	MinTokens           *int              `json:"min_tokens"`
	Thinking            *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	// Structured output: OpenAI chat and Cohere v2 response_format,
	// Anthropic output_config.format (and the beta output_format).
	ResponseFormat json.RawMessage `json:"response_format"`
	OutputConfig   *struct {
		Format json.RawMessage `json:"format"`
	} `json:"output_config"`
	OutputFormat json.RawMessage `json:"output_format"`
}

type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// Images are ollama's base64 images of the message.
	Images []string `json:"images"`
}

// parseRequest decodes a request body of dialect d. Its errors name the field
// at fault and become 400 answers.
func parseRequest(d dialect, body []byte) (*genRequest, error) {
	var w wireRequest
	if err := decodeBody(body, &w); err != nil {
		return nil, err
	}
	req := &genRequest{Model: w.Model, Stream: w.Stream, IgnoreEOS: w.IgnoreEOS}
	if err := addTools(req, w.Tools, w.Messages); err != nil {
		return nil, err
	}
	for _, mt := range []struct {
		name string
		v    *int
	}{{"max_tokens", w.MaxTokens}, {"max_completion_tokens", w.MaxCompletionTokens}} {
		if err := setMaxTokens(req, mt.name, mt.v); err != nil {
			return nil, err
		}
	}
	if w.MinTokens != nil {
		if *w.MinTokens < 0 {
			return nil, fmt.Errorf("min_tokens: %d is negative", *w.MinTokens)
		}
		req.MinTokens = *w.MinTokens
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
		texts, ids, err := promptTexts(w.Prompt)
		if err != nil {
			return nil, fmt.Errorf("prompt: %w", err)
		}
		req.Texts, req.IDs = texts, ids
		req.EchoWords = fields(texts)
		req.InputTokens = len(req.EchoWords) + len(ids)
	default:
		if len(w.System) > 0 {
			texts, _, err := contentOf(w.System)
			if err != nil {
				return nil, fmt.Errorf("system: %w", err)
			}
			req.Texts = append(req.Texts, texts...)
			req.InputTokens += len(fields(texts))
		}
		for i, m := range w.Messages {
			what := fmt.Sprintf("messages[%d].content", i)
			texts, images, err := contentOf(m.Content)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			req.Texts = append(req.Texts, texts...)
			req.EchoWords = fields(texts)
			req.InputTokens += len(req.EchoWords)
			if err := addImages(req, what, images); err != nil {
				return nil, err
			}
		}
		f, err := chatFormat(d, &w)
		if err != nil {
			return nil, err
		}
		req.Format = f
	}
	return req, nil
}

// fields returns the words of texts.
func fields(texts []string) []string {
	var words []string
	for _, t := range texts {
		words = append(words, strings.Fields(t)...)
	}
	return words
}

// contentOf returns the texts and images of a message content: a string, or
// an array of content parts whose "text" fields and images (contentPart) are
// read (other parts are skipped).
func contentOf(raw json.RawMessage) ([]string, []imageInput, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, err
		}
		return []string{s}, nil, nil
	case '[':
		var parts []contentPart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return nil, nil, fmt.Errorf("want a string or an array of content parts: %w", err)
		}
		texts := make([]string, 0, len(parts))
		var images []imageInput
		for i, p := range parts {
			im, ok, err := p.image()
			if err != nil {
				return nil, nil, fmt.Errorf("part %d: %w", i, err)
			}
			if ok {
				images = append(images, im)
				continue
			}
			texts = append(texts, p.Text)
		}
		return texts, images, nil
	}
	return nil, nil, errors.New("want a string or an array of content parts")
}

// promptTexts returns the texts of a completions prompt (a string or an array
// of strings), or the token ids it holds (an array of integers, or an array of
// such arrays).
func promptTexts(raw json.RawMessage) (texts []string, ids []int64, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil, nil
	}
	var ss []string
	if json.Unmarshal(raw, &ss) == nil {
		return ss, nil, nil
	}
	var tok []int64
	if json.Unmarshal(raw, &tok) == nil {
		return nil, tok, nil
	}
	var toks [][]int64
	if json.Unmarshal(raw, &toks) == nil {
		for _, t := range toks {
			ids = append(ids, t...)
		}
		return nil, ids, nil
	}
	return nil, nil, errors.New("want a string, an array of strings or an array of token ids")
}
