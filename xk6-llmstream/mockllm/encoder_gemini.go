package mockllm

import "strconv"

// geminiEncoder is Gemini's streamGenerateContent?alt=sse: every event is a
// whole GenerateContentResponse (candidates[0].content.parts, "thought": true
// on reasoning parts) with cumulative usageMetadata, CRLF framing as Google
// sends it, and no end marker: the last chunk has the finishReason.
type geminiEncoder struct{}

// geminiEnd closes a stamped Gemini event (Google frames with CRLF).
const geminiEnd = "}\r\n\r\n"

func (geminiEncoder) id(seq uint64) string { return "mock-gemini-" + strconv.FormatUint(seq, 10) }

func (geminiEncoder) finishReason(length bool) string {
	if length {
		return "MAX_TOKENS"
	}
	return "STOP"
}

// usage appends usageMetadata with sent output tokens so far, of which
// reasoning are thoughts, and the tail (modelVersion, responseId).
func (e geminiEncoder) usage(b []byte, g *gen, sent int) []byte {
	thoughts := min(sent, g.reasoning)
	b = append(b, `,"usageMetadata":{"promptTokenCount":`...)
	b = appendInt(b, g.input)
	b = append(b, `,"candidatesTokenCount":`...)
	b = appendInt(b, sent-thoughts)
	b = append(b, `,"totalTokenCount":`...)
	b = appendInt(b, g.input+sent)
	if thoughts > 0 {
		b = append(b, `,"thoughtsTokenCount":`...)
		b = appendInt(b, thoughts)
	}
	if g.cached > 0 {
		b = append(b, `,"cachedContentTokenCount":`...)
		b = appendInt(b, g.cached)
	}
	return append(b, e.tail(g)...)
}

// tail returns the constant end of every chunk of the request:
// `},"modelVersion":...,"responseId":"..."`.
func (geminiEncoder) tail(g *gen) []byte {
	if g.st.prefix == nil {
		p := append([]byte(nil), `},"modelVersion":`...)
		p = appendJSONString(p, g.model)
		p = append(p, `,"responseId":"`...)
		p = append(p, g.id...)
		g.st.prefix = append(p, '"')
	}
	return g.st.prefix
}

// candidate appends {"candidates":[{"content":{"parts":[parts],"role":"model"}
// with finish (when not empty) and index, then the usage.
func (e geminiEncoder) candidate(b []byte, g *gen, parts []byte, finish string, sent int) []byte {
	b = append(b, `{"candidates":[{"content":{"parts":[`...)
	b = append(b, parts...)
	b = append(b, `],"role":"model"}`...)
	if finish != "" {
		b = append(b, `,"finishReason":"`...)
		b = append(b, finish...)
		b = append(b, '"')
	}
	b = append(b, `,"index":0}]`...)
	return e.usage(b, g, sent)
}

func (geminiEncoder) preamble(g *gen) { g.st.end = geminiEnd }

func (e geminiEncoder) token(g *gen, reasoning bool, from, n int) {
	var scratch [256]byte
	part := append(scratch[:0], `{"text":`...)
	part = appendTokens(part, g, reasoning, from, n)
	kind := "text"
	if reasoning {
		kind = "reasoning"
		part = append(part, `,"thought":true`...)
	}
	part = append(part, '}')
	b := append(g.buf, "data: "...)
	g.buf = g.stamp(e.candidate(b, g, part, "", g.sent+n), kind, n)
}

func (e geminiEncoder) finish(g *gen) {
	b := append(g.buf, "data: "...)
	b = e.candidate(b, g, []byte(`{"text":""}`), g.finishWord(), g.total)
	g.buf = g.stamp(b, "finish", 0)
}

// errorEvent is Google's error object inside the stream.
func (geminiEncoder) errorEvent(g *gen) {
	b := append(g.buf, `data: {"error":{"code":500,"message":"mock: injected error event","status":"INTERNAL"}`...)
	g.buf = g.stamp(b, "error", 0)
}

func (geminiEncoder) malformed(g *gen) {
	g.buf = append(g.buf, `data: {"candidates":[{"content":{"parts":[{"text":"cut short`+"\r\n\r\n"...)
	g.unstamped("malformed")
}

// whole is generateContent's answer; a streamGenerateContent without alt=sse
// gets it inside a JSON array, as Google answers such a request.
func (e geminiEncoder) whole(g *gen, b []byte) []byte {
	if g.req.GeminiArray {
		b = append(b, '[')
	}
	var parts []byte
	if g.reasoning > 0 {
		parts = append(parts, `{"text":`...)
		parts = appendJSONString(parts, fillerTokens.text(g.reasoning))
		parts = append(parts, `,"thought":true},`...)
	}
	parts = append(parts, `{"text":`...)
	parts = appendJSONString(parts, g.text.text(g.total-g.reasoning))
	parts = append(parts, '}')
	b = e.candidate(b, g, parts, e.finishReason(g.length), g.total)
	b = g.stampJSON(append(b, '}'))
	if g.req.GeminiArray {
		b = append(b[:len(b)-1], "]\n"...)
	}
	return b
}
