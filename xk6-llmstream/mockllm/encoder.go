package mockllm

import (
	"encoding/json"
	"math"
	"strconv"
)

// encoder writes one dialect's events into gen.buf. Every JSON object it
// writes ends through gen.stamp, which adds the ground-truth field last.
type encoder interface {
	// id is the response id of request seq.
	id(seq uint64) string
	// finishReason is the dialect's word for a normal end or a max_tokens cut.
	finishReason(length bool) string
	// preamble writes the events due when the slot is granted (before
	// prefill): the role chunk, message_start, ...
	preamble(g *gen)
	// token writes one event carrying tokens [from, from+n) of the reasoning or
	// answer phase (and any block change the phase switch needs before it).
	token(g *gen, reasoning bool, from, n int)
	// finish writes the closing events (finish reason, usage, end marker).
	finish(g *gen)
	// errorEvent writes an error event in the dialect's shape and what a
	// server sends after it; the stream ends there.
	errorEvent(g *gen)
	// malformed writes one event whose data is not valid JSON.
	malformed(g *gen)
	// whole appends the complete non-streamed answer to b.
	whole(g *gen, b []byte) []byte
}

var encoders = map[dialect]encoder{
	openAIChat:        chatEncoder{},
	openAICompletions: completionsEncoder{},
	anthropicMessages: messagesEncoder{},
	openAIResponses:   responsesEncoder{},
	gemini:            geminiEncoder{},
	cohere:            cohereEncoder{},
	ollama:            ollamaEncoder{},
}

// appendSSEEvent appends `event: name` and opens the event's data line.
func appendSSEEvent(b []byte, name string) []byte {
	b = append(b, "event: "...)
	b = append(b, name...)
	return append(b, "\ndata: "...)
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil { // a Go string always marshals
		panic(err)
	}
	return append(b, q...)
}

// appendTokens appends tokens [from, from+n) of the phase as a JSON string.
func appendTokens(b []byte, g *gen, reasoning bool, from, n int) []byte {
	t := g.text
	if reasoning {
		t = fillerTokens
	}
	b = append(b, '"')
	b = t.appendJSON(b, from, n)
	return append(b, '"')
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// appendFinish appends a finish reason: a JSON string, or null when empty.
func appendFinish(b []byte, reason string) []byte {
	if reason == "" {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = append(b, reason...)
	return append(b, '"')
}

// head returns the constant opening of every OpenAI chunk of the request:
// `data: {"id":...,"object":...,"created":...,"model":...`.
func openAIHead(g *gen, object string) []byte {
	if g.st.prefix == nil {
		p := append([]byte(nil), `data: {"id":"`...)
		p = append(p, g.id...)
		p = append(p, `","object":"`...)
		p = append(p, object...)
		p = append(p, `","created":`...)
		p = strconv.AppendInt(p, g.created, 10)
		p = append(p, `,"model":`...)
		p = appendJSONString(p, g.model)
		g.st.prefix = p
	}
	return g.st.prefix
}

// appendChunkUsage appends the usage field of a chunk other than the final
// usage chunk: absent without include_usage, null with it, cumulative counts
// with continuous_usage_stats (vLLM).
func appendChunkUsage(b []byte, g *gen, completion int) []byte {
	if !g.req.IncludeUsage {
		return b
	}
	if !g.req.ContinuousUsage {
		return append(b, `,"usage":null`...)
	}
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = appendInt(b, g.input)
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, g.input+completion)
	b = append(b, `,"completion_tokens":`...)
	b = appendInt(b, completion)
	return append(b, '}')
}

// reportedTotal is the output tokens a usage report claims: the true count,
// over-reported by the model's usage_over_report share.
func (g *gen) reportedTotal() int {
	return g.total + int(math.Round(g.mc.UsageOverReport*float64(g.total)))
}

// appendOpenAIUsage appends the final usage object.
func appendOpenAIUsage(b []byte, g *gen, details bool) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = appendInt(b, g.input)
	b = append(b, `,"completion_tokens":`...)
	b = appendInt(b, g.reportedTotal())
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, g.input+g.reportedTotal())
	if details || g.cached > 0 { // completions: only when something was cached, as vLLM
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = appendInt(b, g.cached)
		b = append(b, '}')
	}
	if details {
		b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
		b = appendInt(b, g.reasoning)
		b = append(b, '}')
	}
	return append(b, '}')
}

// openAIDone ends an OpenAI stream: the usage chunk when asked, then [DONE].
func openAIDone(g *gen, object string, details bool) {
	b := g.buf
	if g.req.IncludeUsage {
		b = append(b, openAIHead(g, object)...)
		b = append(b, `,"choices":[],"usage":`...)
		b = appendOpenAIUsage(b, g, details)
		b = g.stamp(b, "usage", 0)
	}
	g.buf = append(b, "data: [DONE]\n\n"...)
	g.unstamped("done")
}

// openAIErrorEvent is an error inside an OpenAI-compatible stream, as vLLM and
// OpenAI send it: a data object with an "error" member, then [DONE].
func openAIErrorEvent(g *gen) {
	b := append(g.buf, `data: {"error":{"message":"mock: injected error event","type":"server_error","param":null,"code":"internal_error"}`...)
	b = g.stamp(b, "error", 0)
	g.buf = append(b, "data: [DONE]\n\n"...)
	g.unstamped("done")
}

// chatEncoder is OpenAI chat completions.
type chatEncoder struct{}

const chatObject = "chat.completion.chunk"

func (chatEncoder) id(seq uint64) string { return "chatcmpl-mock-" + strconv.FormatUint(seq, 10) }

func (chatEncoder) finishReason(length bool) string {
	if length {
		return "length"
	}
	return "stop"
}

func (chatEncoder) reasoningField(g *gen) string {
	if g.mc.ReasoningField != "" {
		return g.mc.ReasoningField
	}
	return "reasoning_content"
}

// chunk appends a chat chunk with the given delta object.
func (e chatEncoder) chunk(g *gen, delta []byte, finish string, completion int, kind string, tokens int) {
	b := append(g.buf, openAIHead(g, chatObject)...)
	b = append(b, `,"choices":[{"index":0,"delta":`...)
	b = append(b, delta...)
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	b = appendFinish(b, finish)
	b = append(b, "}]"...)
	b = appendChunkUsage(b, g, completion)
	g.buf = g.stamp(b, kind, tokens)
}

func (e chatEncoder) preamble(g *gen) {
	var delta []byte
	if g.reasoning > 0 {
		delta = append(delta, `{"role":"assistant","content":null,"`...)
		delta = append(delta, e.reasoningField(g)...)
		delta = append(delta, `":""}`...)
	} else {
		delta = append(delta, `{"role":"assistant","content":"","refusal":null}`...)
	}
	e.chunk(g, delta, "", 0, "role", 0)
}

func (e chatEncoder) token(g *gen, reasoning bool, from, n int) {
	var scratch [256]byte
	delta := scratch[:0]
	kind := "text"
	if reasoning {
		kind = "reasoning"
		delta = append(delta, `{"content":null,"`...)
		delta = append(delta, e.reasoningField(g)...)
		delta = append(delta, `":`...)
	} else {
		delta = append(delta, `{"content":`...)
	}
	delta = appendTokens(delta, g, reasoning, from, n)
	delta = append(delta, '}')
	e.chunk(g, delta, "", g.sent+n, kind, n)
}

func (e chatEncoder) finish(g *gen) {
	e.chunk(g, []byte("{}"), g.finishWord(), g.total, "finish", 0)
	openAIDone(g, chatObject, true)
}

func (chatEncoder) errorEvent(g *gen) { openAIErrorEvent(g) }

func (chatEncoder) malformed(g *gen) {
	b := append(g.buf, openAIHead(g, chatObject)...)
	g.buf = append(b, `,"choices":[{"index":0,"delta":{"content":"cut short`+"\n\n"...)
	g.unstamped("malformed")
}

func (e chatEncoder) whole(g *gen, b []byte) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, g.id...)
	b = append(b, `","object":"chat.completion","created":`...)
	b = strconv.AppendInt(b, g.created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, g.model)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	b = appendJSONString(b, g.text.text(g.total-g.reasoning))
	if g.reasoning > 0 {
		b = append(b, `,"`...)
		b = append(b, e.reasoningField(g)...)
		b = append(b, `":`...)
		b = appendJSONString(b, fillerTokens.text(g.reasoning))
	}
	b = append(b, `,"refusal":null},"logprobs":null,"finish_reason":`...)
	b = appendFinish(b, e.finishReason(g.length))
	b = append(b, `}],"usage":`...)
	b = appendOpenAIUsage(b, g, true)
	b = append(b, '}')
	return g.stampJSON(b)
}

// completionsEncoder is OpenAI legacy completions.
type completionsEncoder struct{}

const completionsObject = "text_completion"

func (completionsEncoder) id(seq uint64) string { return "cmpl-mock-" + strconv.FormatUint(seq, 10) }

func (completionsEncoder) finishReason(length bool) string {
	return chatEncoder{}.finishReason(length)
}

func (completionsEncoder) preamble(*gen) {}

func (completionsEncoder) chunk(g *gen, text []byte, finish string, completion int, kind string, tokens int) {
	b := append(g.buf, openAIHead(g, completionsObject)...)
	b = append(b, `,"choices":[{"index":0,"text":`...)
	b = append(b, text...)
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	b = appendFinish(b, finish)
	b = append(b, "}]"...)
	b = appendChunkUsage(b, g, completion)
	g.buf = g.stamp(b, kind, tokens)
}

func (e completionsEncoder) token(g *gen, _ bool, from, n int) {
	var scratch [256]byte
	e.chunk(g, appendTokens(scratch[:0], g, false, from, n), "", g.sent+n, "text", n)
}

func (e completionsEncoder) finish(g *gen) {
	e.chunk(g, []byte(`""`), e.finishReason(g.length), g.total, "finish", 0)
	openAIDone(g, completionsObject, false)
}

func (completionsEncoder) errorEvent(g *gen) { openAIErrorEvent(g) }

func (completionsEncoder) malformed(g *gen) {
	b := append(g.buf, openAIHead(g, completionsObject)...)
	g.buf = append(b, `,"choices":[{"index":0,"text":"cut short`+"\n\n"...)
	g.unstamped("malformed")
}

func (e completionsEncoder) whole(g *gen, b []byte) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, g.id...)
	b = append(b, `","object":"text_completion","created":`...)
	b = strconv.AppendInt(b, g.created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, g.model)
	b = append(b, `,"choices":[{"index":0,"text":`...)
	b = appendJSONString(b, g.text.text(g.total))
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	b = appendFinish(b, e.finishReason(g.length))
	b = append(b, `}],"usage":`...)
	b = appendOpenAIUsage(b, g, false)
	b = append(b, '}')
	return g.stampJSON(b)
}
