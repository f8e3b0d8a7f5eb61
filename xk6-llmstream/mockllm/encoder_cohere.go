package mockllm

import "strconv"

// cohereEncoder is Cohere's v2 chat stream: message-start, a content block
// per phase (content-start, content-delta with "thinking" or "text",
// content-end), message-end with the finish reason and usage. Each event has
// an `event:` line and the same name as its JSON "type".
type cohereEncoder struct{}

func (cohereEncoder) id(seq uint64) string { return "mock-cohere-" + strconv.FormatUint(seq, 10) }

func (cohereEncoder) finishReason(length bool) string {
	if length {
		return "MAX_TOKENS"
	}
	return "COMPLETE"
}

// event opens event typ: `event: typ`, then {"type":typ.
func (cohereEncoder) event(g *gen, typ string) []byte {
	b := appendSSEEvent(g.buf, typ)
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	return append(b, '"')
}

// field is the content field of a phase.
func (cohereEncoder) field(reasoning bool) string {
	if reasoning {
		return "thinking"
	}
	return "text"
}

func (e cohereEncoder) blockStart(g *gen, reasoning bool) {
	b := e.event(g, "content-start")
	b = append(b, `,"index":`...)
	b = appendInt(b, g.st.block)
	b = append(b, `,"delta":{"message":{"content":{"type":"`...)
	b = append(b, e.field(reasoning)...)
	b = append(b, `","`...)
	b = append(b, e.field(reasoning)...)
	b = append(b, `":""}}}`...)
	g.buf = g.stamp(b, "content-start", 0)
	g.st.blockOpen, g.st.inReasoning = true, reasoning
}

func (e cohereEncoder) blockEnd(g *gen) {
	if !g.st.blockOpen {
		return
	}
	b := e.event(g, "content-end")
	b = append(b, `,"index":`...)
	b = appendInt(b, g.st.block)
	g.buf = g.stamp(b, "content-end", 0)
	g.st.blockOpen = false
	g.st.block++
}

func (e cohereEncoder) preamble(g *gen) {
	b := e.event(g, "message-start")
	b = append(b, `,"id":"`...)
	b = append(b, g.id...)
	b = append(b, `","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}`...)
	g.buf = g.stamp(b, "message-start", 0)
}

func (e cohereEncoder) token(g *gen, reasoning bool, from, n int) {
	if g.st.blockOpen && reasoning != g.st.inReasoning {
		e.blockEnd(g)
	}
	if !g.st.blockOpen {
		e.blockStart(g, reasoning)
	}
	b := e.event(g, "content-delta")
	b = append(b, `,"index":`...)
	b = appendInt(b, g.st.block)
	b = append(b, `,"delta":{"message":{"content":{"`...)
	b = append(b, e.field(reasoning)...)
	b = append(b, `":`...)
	b = appendTokens(b, g, reasoning, from, n)
	b = append(b, "}}}"...)
	kind := "text"
	if reasoning {
		kind = "reasoning"
	}
	g.buf = g.stamp(b, kind, n)
}

// usage appends Cohere's usage object: the tokens sent, also when an error
// ends the stream early.
func (cohereEncoder) usage(b []byte, g *gen) []byte {
	for i, name := range []string{`"billed_units":{"input_tokens":`, `"tokens":{"input_tokens":`} {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, name...)
		b = appendInt(b, g.input)
		b = append(b, `,"output_tokens":`...)
		b = appendInt(b, g.sent)
		b = append(b, '}')
	}
	return b
}

// end writes message-end with a finish reason (and an error, for ERROR).
func (e cohereEncoder) end(g *gen, finish, errMsg string) {
	b := e.event(g, "message-end")
	b = append(b, `,"delta":{"finish_reason":"`...)
	b = append(b, finish...)
	b = append(b, '"')
	if errMsg != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, errMsg)
	}
	b = append(b, `,"usage":{`...)
	b = e.usage(b, g)
	g.buf = g.stamp(append(b, "}}"...), "message-end", 0)
}

func (e cohereEncoder) finish(g *gen) {
	e.blockEnd(g)
	if g.tool != nil && g.sent > g.reasoning {
		e.toolEnd(g)
	}
	e.end(g, g.finishWord(), "")
}

// errorEvent is a message-end with finish_reason ERROR, Cohere's way of
// failing a stream that began.
func (e cohereEncoder) errorEvent(g *gen) { e.end(g, "ERROR", "mock: injected error event") }

func (e cohereEncoder) malformed(g *gen) {
	b := e.event(g, "content-delta")
	g.buf = append(b, `,"delta":{"message":{"content":{"text":"cut short`+"\n\n"...)
	g.unstamped("malformed")
}

func (e cohereEncoder) whole(g *gen, b []byte) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, g.id...)
	b = append(b, `","finish_reason":"`...)
	b = append(b, e.finishReason(g.length)...)
	b = append(b, `","message":{"role":"assistant","content":[`...)
	if g.reasoning > 0 {
		b = append(b, `{"type":"thinking","thinking":`...)
		b = appendJSONString(b, fillerTokens.text(g.reasoning))
		b = append(b, "},"...)
	}
	b = append(b, `{"type":"text","text":`...)
	b = appendJSONString(b, g.text.text(g.total-g.reasoning))
	b = append(b, `}]},"usage":{`...)
	b = e.usage(b, g)
	return g.stampJSON(append(b, "}}"...))
}
