package stream

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"github.com/valyala/fastjson"
)

// DialectFromPath returns the dialect an endpoint path implies, or "" when the
// path does not tell, by the one table internal/endpoints.PathDialects:
// ".../chat/completions" → OpenAIChat, ".../completions" →
// OpenAICompletions, ".../messages" → AnthropicMessages, ".../responses" →
// OpenAIResponses, "...:streamGenerateContent" (or ":generateContent") →
// Gemini, ".../v2/chat" → Cohere, ".../api/chat" and ".../api/generate" →
// Ollama; and the calls: ".../embeddings" → OpenAIEmbeddings, ".../v2/embed"
// → CohereEmbed, ".../v2/rerank" → CohereRerank, ".../rerank" → Rerank. A
// trailing slash is ignored.
func DialectFromPath(path string) Dialect {
	return Dialect(endpoints.DialectOfPath(path))
}

// dialectFromURL is DialectFromPath for a full URL ("" if it does not parse).
func dialectFromURL(raw string) Dialect {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return DialectFromPath(u.Path)
}

// dialects is every name ParseDialect accepts, auto first.
var dialects = []Dialect{DialectAuto, OpenAIChat, OpenAICompletions, AnthropicMessages,
	OpenAIResponses, Gemini, Cohere, Ollama}

// ParseDialect checks a dialect name (a streaming one, or a call's: see
// CallDialects); "" means DialectAuto.
func ParseDialect(s string) (Dialect, bool) {
	if s == "" {
		return DialectAuto, true
	}
	for _, d := range dialects {
		if string(d) == s {
			return d, true
		}
	}
	for _, d := range callDialects {
		if string(d) == s {
			return d, true
		}
	}
	return "", false
}

// Dialects lists the dialect names ParseDialect accepts, auto first.
func Dialects() []Dialect { return append([]Dialect(nil), dialects...) }

// isOpenAI reports whether d is one of the OpenAI chat-style dialects (the ones
// that take stream_options.include_usage).
func (d Dialect) isOpenAI() bool { return d == OpenAIChat || d == OpenAICompletions }

// newDecoder returns the decoder for d; DialectAuto (or "") gets one that
// picks a dialect from the first event with a JSON object in it.
func newDecoder(d Dialect) decoder {
	switch d {
	case OpenAIChat, OpenAICompletions:
		return &openAIDecoder{}
	case AnthropicMessages:
		return &anthropicDecoder{}
	case OpenAIResponses:
		return &responsesDecoder{}
	case Gemini:
		return &geminiDecoder{}
	case Cohere:
		return &cohereDecoder{}
	case Ollama:
		return &ollamaDecoder{}
	}
	return &autoDecoder{}
}

// autoDecoder picks the dialect from the first event's shape (see
// detectDialect) and decodes every event with that dialect's decoder.
type autoDecoder struct {
	dec    decoder
	picked Dialect // the dialect chosen, "" for OpenAI (whose decoder tells chat from completions)
}

var anthropicEventNames = map[string]bool{
	"message_start": true, "content_block_start": true, "content_block_delta": true,
	"content_block_stop": true, "message_delta": true, "message_stop": true, "ping": true,
}

var cohereEventNames = map[string]bool{
	"message-start": true, "content-start": true, "content-delta": true, "content-end": true,
	"tool-plan-delta": true, "tool-call-start": true, "tool-call-delta": true, "tool-call-end": true,
	"citation-start": true, "citation-end": true, "message-end": true,
}

// detectDialect names the dialect of a first event: its SSE event name or
// JSON "type" (Anthropic's message_start…, Cohere's message-start…, the
// Responses API's response.*), else its keys (Gemini's candidates or
// usageMetadata, ollama's done, OpenAI's choices or object; a "type" without
// those means Anthropic). "" means OpenAI.
func detectDialect(ev *Event) Dialect {
	var s struct {
		Type          *string         `json:"type"`
		Object        *string         `json:"object"`
		Choices       json.RawMessage `json:"choices"`
		Candidates    json.RawMessage `json:"candidates"`
		UsageMetadata json.RawMessage `json:"usageMetadata"`
		Feedback      json.RawMessage `json:"promptFeedback"`
		Done          *bool           `json:"done"`
	}
	parsed := json.Unmarshal(ev.Data, &s) == nil
	typ := string(ev.Type)
	if s.Type != nil {
		typ = *s.Type
	}
	switch {
	case anthropicEventNames[string(ev.Type)] || anthropicEventNames[typ]:
		return AnthropicMessages
	case cohereEventNames[string(ev.Type)] || cohereEventNames[typ]:
		return Cohere
	case strings.HasPrefix(string(ev.Type), "response.") || strings.HasPrefix(typ, "response."):
		return OpenAIResponses
	case !parsed || s.Choices != nil || s.Object != nil:
		return ""
	case s.Candidates != nil || s.UsageMetadata != nil || s.Feedback != nil:
		return Gemini
	case s.Done != nil:
		return Ollama
	case s.Type != nil:
		return AnthropicMessages
	}
	return ""
}

func (a *autoDecoder) decode(ev *Event, d *delta) error {
	if a.dec == nil {
		if isDone(ev.Data) || isBlank(ev.Data) {
			return (&openAIDecoder{}).decode(ev, d)
		}
		a.picked = detectDialect(ev)
		if a.picked == "" {
			a.dec = &openAIDecoder{}
		} else {
			a.dec = newDecoder(a.picked)
		}
	}
	err := a.dec.decode(ev, d)
	if d.shape == "" {
		d.shape = a.picked
	}
	return err
}

// notOpenAI returns an error when v, an event decoded as dialect d, has the
// "choices" or "object" of an OpenAI chat or completions chunk instead.
func notOpenAI(v *fastjson.Value, d Dialect) error {
	if isNull(v.Get("choices")) && isNull(v.Get("object")) {
		return nil
	}
	return fmt.Errorf("event has \"choices\" or \"object\": this looks like an OpenAI chat stream, not %s (use dialect %q or %q)", d, OpenAIChat, DialectAuto)
}
