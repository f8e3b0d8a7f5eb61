package mockllm

import (
	"encoding/base64"
	"strconv"
)

// messagesEncoder is Anthropic messages: named events (`event:` lines), a
// message_start with the input usage, content blocks (a thinking block at index
// 0 for a reasoning phase, then the text block), a ping after the first block
// start, message_delta with the stop reason and output usage, message_stop.
type messagesEncoder struct{}

func (messagesEncoder) id(seq uint64) string { return "msg_mock_" + strconv.FormatUint(seq, 10) }

func (messagesEncoder) finishReason(length bool) string {
	if length {
		return "max_tokens"
	}
	return "end_turn"
}

// event appends `event: name` and opens its data line.
func (messagesEncoder) event(b []byte, name string) []byte { return appendSSEEvent(b, name) }

func (e messagesEncoder) blockStart(g *gen, index int, thinking bool) {
	b := e.event(g.buf, "content_block_start")
	b = append(b, `{"type":"content_block_start","index":`...)
	b = appendInt(b, index)
	if thinking {
		b = append(b, `,"content_block":{"type":"thinking","thinking":"","signature":""}`...)
	} else {
		b = append(b, `,"content_block":{"type":"text","text":""}`...)
	}
	g.buf = g.stamp(b, "content_block_start", 0)
	g.st.blockOpen, g.st.block, g.st.inReasoning = true, index, thinking
}

// blockStop closes the open block; a thinking block gets its signature first.
func (e messagesEncoder) blockStop(g *gen) {
	if !g.st.blockOpen {
		return
	}
	if g.st.inReasoning {
		b := e.event(g.buf, "content_block_delta")
		b = append(b, `{"type":"content_block_delta","index":`...)
		b = appendInt(b, g.st.block)
		b = append(b, `,"delta":{"type":"signature_delta","signature":"`...)
		b = append(b, signature(g.seq)...)
		b = append(b, `"}`...)
		g.buf = g.stamp(b, "signature", 0)
	}
	b := e.event(g.buf, "content_block_stop")
	b = append(b, `{"type":"content_block_stop","index":`...)
	b = appendInt(b, g.st.block)
	g.buf = g.stamp(b, "content_block_stop", 0)
	g.st.blockOpen, g.st.inReasoning = false, false
}

// signature is the thinking block's opaque signature: deterministic bytes,
// base64 like the real one.
func signature(seq uint64) string {
	return base64.StdEncoding.EncodeToString([]byte("mockllm thinking signature " + strconv.FormatUint(seq, 10)))
}

func (e messagesEncoder) preamble(g *gen) {
	b := e.event(g.buf, "message_start")
	b = append(b, `{"type":"message_start","message":{"id":"`...)
	b = append(b, g.id...)
	b = append(b, `","type":"message","role":"assistant","model":`...)
	b = appendJSONString(b, g.model)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	b = appendAnthropicInput(b, g)
	b = append(b, `,"output_tokens":1}}`...)
	g.buf = g.stamp(b, "message_start", 0)
	if g.tool == nil || g.reasoning > 0 { // a tool call opens its own block
		e.blockStart(g, 0, g.reasoning > 0)
	}
	b = e.event(g.buf, "ping")
	b = append(b, `{"type":"ping"`...)
	g.buf = g.stamp(b, "ping", 0)
}

func (e messagesEncoder) token(g *gen, reasoning bool, from, n int) {
	if !reasoning && g.st.inReasoning {
		e.blockStop(g)
		e.blockStart(g, g.st.block+1, false)
	}
	b := e.event(g.buf, "content_block_delta")
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = appendInt(b, g.st.block)
	kind := "text"
	if reasoning {
		kind = "reasoning"
		b = append(b, `,"delta":{"type":"thinking_delta","thinking":`...)
	} else {
		b = append(b, `,"delta":{"type":"text_delta","text":`...)
	}
	b = appendTokens(b, g, reasoning, from, n)
	b = append(b, '}')
	g.buf = g.stamp(b, kind, n)
}

func (e messagesEncoder) finish(g *gen) {
	e.blockStop(g)
	b := e.event(g.buf, "message_delta")
	b = append(b, `{"type":"message_delta","delta":{"stop_reason":"`...)
	b = append(b, g.finishWord()...)
	b = append(b, `","stop_sequence":null},"usage":{"input_tokens":`...)
	b = appendInt(b, g.input)
	b = append(b, `,"output_tokens":`...)
	b = appendInt(b, g.reportedTotal())
	b = append(b, '}')
	g.buf = g.stamp(b, "message_delta", 0)
	b = e.event(g.buf, "message_stop")
	b = append(b, `{"type":"message_stop"`...)
	g.buf = g.stamp(b, "message_stop", 0)
}

// errorEvent is Anthropic's in-stream error (as sent when overloaded); the
// stream ends after it.
func (e messagesEncoder) errorEvent(g *gen) {
	b := e.event(g.buf, "error")
	b = append(b, `{"type":"error","error":{"type":"overloaded_error","message":"mock: injected error event"}`...)
	g.buf = g.stamp(b, "error", 0)
}

func (e messagesEncoder) malformed(g *gen) {
	b := e.event(g.buf, "content_block_delta")
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = appendInt(b, g.st.block)
	g.buf = append(b, `,"delta":{"type":"text_delta","text":"cut short`+"\n\n"...)
	g.unstamped("malformed")
}

func (e messagesEncoder) whole(g *gen, b []byte) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, g.id...)
	b = append(b, `","type":"message","role":"assistant","model":`...)
	b = appendJSONString(b, g.model)
	b = append(b, `,"content":[`...)
	if g.reasoning > 0 {
		b = append(b, `{"type":"thinking","thinking":`...)
		b = appendJSONString(b, fillerTokens.text(g.reasoning))
		b = append(b, `,"signature":"`...)
		b = append(b, signature(g.seq)...)
		b = append(b, `"}`...)
	}
	if answer := g.total - g.reasoning; answer > 0 {
		if g.reasoning > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = appendJSONString(b, g.text.text(answer))
		b = append(b, '}')
	}
	b = append(b, `],"stop_reason":"`...)
	b = append(b, e.finishReason(g.length)...)
	b = append(b, `","stop_sequence":null,"usage":{"input_tokens":`...)
	b = appendAnthropicInput(b, g)
	b = append(b, `,"output_tokens":`...)
	b = appendInt(b, g.total)
	b = append(b, "}}"...)
	return g.stampJSON(b)
}

// appendAnthropicInput appends the input counts of an Anthropic usage object:
// input_tokens excludes the prompt tokens read from the prefix cache, which
// are cache_read_input_tokens (as Anthropic reports them).
func appendAnthropicInput(b []byte, g *gen) []byte {
	b = appendInt(b, g.input-g.cached)
	b = append(b, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":`...)
	return appendInt(b, g.cached)
}
