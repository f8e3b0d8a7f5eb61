package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// httpError records a non-2xx response: its kind from the status and a message
// from the first few KiB of its body (OpenAI {"error":{"message"}}, Anthropic
// {"type":"error","error":{"type","message"}}, {"message"}, {"detail"}, or the
// text itself).
func (cl *call) httpError(resp *http.Response, tb *timedBody) {
	b := cl.b
	var body []byte
	if src, err := decodeContent(resp.Header.Get("Content-Encoding"), tb); err == nil {
		body, _ = io.ReadAll(io.LimitReader(src, maxErrorBody))
	}
	cl.rec.Bytes = int64(len(body))
	cl.rec.E2E = cl.since()
	msg := bodyMessage(body)
	if msg == "" {
		msg = "(no message in the body)"
	}
	where := ""
	if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		where = fmt.Sprintf(" (redirect to %s, not followed: it would turn the POST into a GET)", redactURL(loc))
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		where += fmt.Sprintf(" (Retry-After: %s)", firstBytes([]byte(ra), 40))
	}
	// Scrub before cutting, so that no part of a secret survives the cut.
	msg = cl.scrub.String(msg)
	b.fail(HTTPKind(resp.StatusCode), "HTTP %d %s%s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), where, msg)
	b.finish(false, false)
}

// bodyMessage pulls the human message out of an error body.
func bodyMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		for _, raw := range []json.RawMessage{v.Error, v.Message, v.Detail} {
			if m := errorMessage(raw); m != "" {
				return m
			}
		}
	}
	return strings.Join(strings.Fields(string(body)), " ")
}

// wholeAnswer is a non-streamed answer: OpenAI chat or completions, or an
// Anthropic message.
type wholeAnswer struct {
	Model      string          `json:"model"`
	Type       string          `json:"type"`
	Choices    []oaChoice      `json:"choices"`
	Content    []anBlock       `json:"content"`
	StopReason *string         `json:"stop_reason"`
	Error      json.RawMessage `json:"error"`
	Usage      *struct {
		oaUsage
		anUsage
	} `json:"usage"`
}

// notStreamed records a 2xx response that is not text/event-stream, with
// whatever the whole answer tells (its text, usage, finish reason, model).
func (cl *call) notStreamed(resp *http.Response, tb *timedBody) {
	b, rec := cl.b, cl.rec
	ct := resp.Header.Get("Content-Type")
	var body []byte
	src, err := decodeContent(resp.Header.Get("Content-Encoding"), tb)
	if err == nil {
		body, err = io.ReadAll(io.LimitReader(src, int64(cl.c.cfg.maxLine)))
	}
	rec.Bytes = int64(len(body))
	rec.E2E = cl.since()
	if err != nil && cl.failFromContext("reading a response that is not a stream") {
		b.finish(false, false)
		return
	}
	extra := ""
	var w wholeAnswer
	if json.Unmarshal(body, &w) == nil {
		extra = b.wholeAnswer(&w)
	}
	b.fail(KindNotStreamed, "the response is not text/event-stream (Content-Type %q, %d bytes): the server sent the answer in one piece%s",
		ct, len(body), extra)
	b.finish(false, false)
}

// wholeAnswer takes what it can from a non-streamed answer into the record,
// and returns a note for the error message.
func (b *builder) wholeAnswer(w *wholeAnswer) string {
	r := b.rec
	if m := errorMessage(w.Error); m != "" {
		return "; it says: " + m
	}
	r.Model = w.Model
	var answer, reasoning strings.Builder
	for i := range w.Choices {
		ch := &w.Choices[i]
		if r.Dialect == DialectAuto {
			r.Dialect = OpenAIChat
			if ch.Text != nil {
				r.Dialect = OpenAICompletions
			}
		}
		if ch.FinishReason != nil {
			r.FinishReason = *ch.FinishReason
		}
		if ch.Text != nil {
			answer.WriteString(string(*ch.Text))
		}
		if m := ch.Message; m != nil {
			answer.WriteString(string(m.Content) + string(m.Refusal))
			reasoning.WriteString(string(m.ReasoningContent) + string(m.Reasoning))
			r.ToolCalls += len(m.ToolCalls)
		}
	}
	if w.Type == "message" || len(w.Content) > 0 {
		if r.Dialect == DialectAuto {
			r.Dialect = AnthropicMessages
		}
		for _, c := range w.Content {
			switch c.Type {
			case "text":
				answer.WriteString(c.Text)
			case "thinking":
				reasoning.WriteString(c.Thinking)
			case "tool_use", "server_tool_use", "mcp_tool_use":
				r.ToolCalls++
			}
		}
		if w.StopReason != nil {
			r.FinishReason = *w.StopReason
		}
	}
	if u := w.Usage; u != nil {
		switch {
		case u.CompletionTokens != nil:
			b.hasOutput, b.output = true, *u.CompletionTokens
			if u.PromptTokens != nil {
				b.hasInput, b.input = true, *u.PromptTokens
			}
		case u.OutputTokens != nil:
			b.hasOutput, b.output = true, *u.OutputTokens
			if n, ok := u.anUsage.input(); ok {
				b.hasInput, b.input = true, n
			}
		}
	}
	r.HasReasoning = reasoning.Len() > 0
	if b.keepText {
		b.text.WriteString(answer.String())
		b.reasoning.WriteString(reasoning.String())
	}
	if answer.Len() == 0 && reasoning.Len() == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d bytes of text; the server ignored \"stream\": true)", answer.Len()+reasoning.Len())
}

// oaChoice, oaDelta and oaUsage decode a whole (not streamed) OpenAI answer.
type oaChoice struct {
	Index        int       `json:"index"`
	Delta        *oaDelta  `json:"delta"`
	Message      *oaDelta  `json:"message"` // a whole answer (not streamed)
	Text         *flexText `json:"text"`    // legacy completions
	FinishReason *string   `json:"finish_reason"`
}

type oaDelta struct {
	Content          flexText     `json:"content"`
	Refusal          flexText     `json:"refusal"`
	ReasoningContent flexText     `json:"reasoning_content"`
	Reasoning        flexText     `json:"reasoning"`
	ToolCalls        []oaToolCall `json:"tool_calls"`
}

type oaToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string      `json:"name"`
		Arguments flexPresent `json:"arguments"`
	} `json:"function"`
}

type oaUsage struct {
	PromptTokens            *int `json:"prompt_tokens"`
	CompletionTokens        *int `json:"completion_tokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens *int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type anBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking string `json:"thinking"`
	Name     string `json:"name"`
}

type anUsage struct {
	InputTokens              *int `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
}

// input returns the prompt tokens the server processed: Anthropic reports
// cached prompt tokens apart from input_tokens; OpenAI's prompt_tokens
// includes them, so they are added up here to mean the same thing.
func (u *anUsage) input() (int, bool) {
	if u == nil || u.InputTokens == nil {
		return 0, false
	}
	n := *u.InputTokens
	if u.CacheCreationInputTokens != nil {
		n += *u.CacheCreationInputTokens
	}
	if u.CacheReadInputTokens != nil {
		n += *u.CacheReadInputTokens
	}
	return n, true
}

// flexText is a JSON text field that servers send as a string, as null, or as
// an array of content parts ({"type":"text","text":"..."}); anything else is
// taken as no text.
type flexText string

// UnmarshalJSON implements json.Unmarshaler.
func (t *flexText) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = flexText(s)
	case '[':
		var parts []struct {
			Text     *string `json:"text"`
			Thinking *string `json:"thinking"`
		}
		if json.Unmarshal(b, &parts) != nil {
			return nil
		}
		var s []byte
		for _, p := range parts {
			if p.Text != nil {
				s = append(s, *p.Text...)
			} else if p.Thinking != nil {
				s = append(s, *p.Thinking...)
			}
		}
		*t = flexText(s)
	}
	return nil
}

// flexPresent is a JSON value of any type that counts as present when it is
// not null, not an empty string and not an empty object (tool-call arguments
// are a string fragment, but some servers send an object).
type flexPresent bool

// UnmarshalJSON implements json.Unmarshaler.
func (p *flexPresent) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	*p = flexPresent(s != "" && s != "null" && s != `""` && s != "{}")
	return nil
}

// errorMessage pulls a human message out of an error value found in a stream
// or a body: {"message": "...", "type": "...", "code": ...}, or a string.
func errorMessage(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	var e struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &e) == nil && (e.Message != "" || e.Type != "") {
		msg := e.Message
		if e.Type != "" {
			if msg == "" {
				msg = e.Type
			} else {
				msg = e.Type + ": " + msg
			}
		}
		return msg
	}
	return string(raw)
}
