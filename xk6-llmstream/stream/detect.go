package stream

import (
	"encoding/json"
	"net/url"
	"strings"
)

// DialectFromPath returns the dialect an endpoint path implies, or "" when the
// path does not tell: ".../chat/completions" → OpenAIChat, ".../completions" →
// OpenAICompletions, ".../messages" → AnthropicMessages. A trailing slash is
// ignored.
func DialectFromPath(path string) Dialect {
	p := strings.TrimRight(path, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
		return OpenAIChat
	case strings.HasSuffix(p, "/completions"):
		return OpenAICompletions
	case strings.HasSuffix(p, "/messages"):
		return AnthropicMessages
	}
	return ""
}

// dialectFromURL is DialectFromPath for a full URL ("" if it does not parse).
func dialectFromURL(raw string) Dialect {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return DialectFromPath(u.Path)
}

// ParseDialect checks a dialect name; "" means DialectAuto.
func ParseDialect(s string) (Dialect, bool) {
	switch d := Dialect(s); d {
	case "":
		return DialectAuto, true
	case DialectAuto, OpenAIChat, OpenAICompletions, AnthropicMessages:
		return d, true
	}
	return "", false
}

// Dialects lists the dialect names ParseDialect accepts, auto first.
func Dialects() []Dialect {
	return []Dialect{DialectAuto, OpenAIChat, OpenAICompletions, AnthropicMessages}
}

// isOpenAI reports whether d is one of the OpenAI dialects.
func (d Dialect) isOpenAI() bool { return d == OpenAIChat || d == OpenAICompletions }

// newDecoder returns the decoder for d; DialectAuto (or "") gets one that
// picks a dialect from the first event with a JSON object in it.
func newDecoder(d Dialect) decoder {
	switch d {
	case OpenAIChat, OpenAICompletions:
		return &openAIDecoder{}
	case AnthropicMessages:
		return &anthropicDecoder{}
	}
	return &autoDecoder{}
}

// autoDecoder picks the dialect from the first event's shape: an Anthropic
// event name or a top-level "type" without "choices"/"object" means Anthropic
// Messages; anything else is decoded as OpenAI (chat or completions, which the
// OpenAI decoder tells apart by choices[].delta vs choices[].text).
type autoDecoder struct {
	dec decoder
}

var anthropicEventNames = map[string]bool{
	"message_start": true, "content_block_start": true, "content_block_delta": true,
	"content_block_stop": true, "message_delta": true, "message_stop": true, "ping": true,
}

func (a *autoDecoder) decode(ev *Event, d *delta) error {
	if a.dec == nil {
		if isDone(ev.Data) || isBlank(ev.Data) {
			return (&openAIDecoder{}).decode(ev, d)
		}
		if anthropicEventNames[string(ev.Type)] {
			a.dec = &anthropicDecoder{}
		} else {
			var s struct {
				Type    *string         `json:"type"`
				Object  *string         `json:"object"`
				Choices json.RawMessage `json:"choices"`
			}
			if json.Unmarshal(ev.Data, &s) == nil && s.Type != nil && s.Object == nil && s.Choices == nil {
				a.dec = &anthropicDecoder{}
			} else {
				a.dec = &openAIDecoder{}
			}
		}
	}
	return a.dec.decode(ev, d)
}
