package mockllm

import "strconv"

// responsesEncoder is the OpenAI Responses API: named events whose JSON
// "type" repeats the name and counts sequence_number. response.created and
// response.in_progress open the stream; a reasoning phase is a reasoning
// output item whose summary text streams; the answer is a message item with
// one output_text part; response.completed (response.incomplete at
// max_output_tokens) carries the usage.
type responsesEncoder struct{}

func (responsesEncoder) id(seq uint64) string { return "resp_mock_" + strconv.FormatUint(seq, 10) }

func (responsesEncoder) finishReason(length bool) string {
	if length {
		return "max_output_tokens"
	}
	return "completed"
}

// event opens event typ: `event: typ`, then {"type":typ,"sequence_number":n.
func (responsesEncoder) event(g *gen, typ string) []byte {
	b := appendSSEEvent(g.buf, typ)
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","sequence_number":`...)
	b = appendInt(b, g.st.n)
	g.st.n++
	return b
}

// object appends the response object (its usage only when final) and
// closes it.
func (e responsesEncoder) object(b []byte, g *gen, final bool, output []byte) []byte {
	status := "in_progress"
	if final {
		status = "completed"
		if g.length {
			status = "incomplete"
		}
	}
	b = append(b, `{"id":"`...)
	b = append(b, g.id...)
	b = append(b, `","object":"response","created_at":`...)
	b = strconv.AppendInt(b, g.created, 10)
	b = append(b, `,"status":"`...)
	b = append(b, status...)
	b = append(b, `","incomplete_details":`...)
	if final && g.length {
		b = append(b, `{"reason":"max_output_tokens"}`...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"model":`...)
	b = appendJSONString(b, g.model)
	b = append(b, `,"output":[`...)
	b = append(b, output...)
	b = append(b, `],"usage":`...)
	if !final {
		return append(b, "null}"...)
	}
	b = append(b, `{"input_tokens":`...)
	b = appendInt(b, g.input)
	b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
	b = appendInt(b, g.cached)
	b = append(b, `},"output_tokens":`...)
	b = appendInt(b, g.total)
	b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
	b = appendInt(b, g.reasoning)
	b = append(b, `},"total_tokens":`...)
	b = appendInt(b, g.input+g.total)
	return append(b, "}}"...)
}

// lifecycle writes response.created, .in_progress or .completed/.incomplete.
func (e responsesEncoder) lifecycle(g *gen, typ string, final bool) {
	b := e.event(g, typ)
	b = append(b, `,"response":`...)
	b = e.object(b, g, final, nil)
	g.buf = g.stamp(b, typ, 0)
}

// itemID is the id of output item index (0 reasoning when there is any).
func (e responsesEncoder) itemID(b []byte, g *gen, reasoning bool) []byte {
	if reasoning {
		b = append(b, "rs_mock_"...)
	} else {
		b = append(b, "msg_mock_"...)
	}
	return strconv.AppendUint(b, g.seq, 10)
}

// item writes output_item.added or .done for the reasoning or message item.
func (e responsesEncoder) item(g *gen, typ string, reasoning bool) {
	b := e.event(g, typ)
	b = append(b, `,"output_index":`...)
	b = appendInt(b, g.st.block)
	b = append(b, `,"item":{"id":"`...)
	b = e.itemID(b, g, reasoning)
	status := "in_progress"
	if typ == "response.output_item.done" {
		status = "completed"
	}
	if reasoning {
		b = append(b, `","type":"reasoning","summary":[]}`...)
	} else {
		b = append(b, `","type":"message","status":"`...)
		b = append(b, status...)
		b = append(b, `","role":"assistant","content":[]}`...)
	}
	g.buf = g.stamp(b, typ, 0)
}

// open opens the output item of a phase (and its summary or content part).
func (e responsesEncoder) open(g *gen, reasoning bool) {
	e.item(g, "response.output_item.added", reasoning)
	typ := "response.content_part.added"
	if reasoning {
		typ = "response.reasoning_summary_part.added"
	}
	b := e.event(g, typ)
	b = append(b, `,"item_id":"`...)
	b = e.itemID(b, g, reasoning)
	b = append(b, `","output_index":`...)
	b = appendInt(b, g.st.block)
	if reasoning {
		b = append(b, `,"summary_index":0,"part":{"type":"summary_text","text":""}`...)
	} else {
		b = append(b, `,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`...)
	}
	g.buf = g.stamp(b, typ, 0)
	g.st.blockOpen, g.st.inReasoning = true, reasoning
}

// close ends the open item: the answer's output_text.done repeats its whole
// text, as OpenAI does (a decoder must not count it again).
func (e responsesEncoder) close(g *gen) {
	if !g.st.blockOpen {
		return
	}
	if !g.st.inReasoning {
		b := e.event(g, "response.output_text.done")
		b = append(b, `,"item_id":"`...)
		b = e.itemID(b, g, false)
		b = append(b, `","output_index":`...)
		b = appendInt(b, g.st.block)
		b = append(b, `,"content_index":0,"text":`...)
		b = appendJSONString(b, g.text.text(g.sent-g.reasoning))
		g.buf = g.stamp(b, "response.output_text.done", 0)
	}
	e.item(g, "response.output_item.done", g.st.inReasoning)
	g.st.blockOpen = false
	g.st.block++
}

func (e responsesEncoder) preamble(g *gen) {
	e.lifecycle(g, "response.created", false)
	e.lifecycle(g, "response.in_progress", false)
}

func (e responsesEncoder) token(g *gen, reasoning bool, from, n int) {
	if g.st.blockOpen && reasoning != g.st.inReasoning {
		e.close(g)
	}
	if !g.st.blockOpen {
		e.open(g, reasoning)
	}
	typ, kind := "response.output_text.delta", "text"
	if reasoning {
		typ, kind = "response.reasoning_summary_text.delta", "reasoning"
	}
	b := e.event(g, typ)
	b = append(b, `,"item_id":"`...)
	b = e.itemID(b, g, reasoning)
	b = append(b, `","output_index":`...)
	b = appendInt(b, g.st.block)
	if reasoning {
		b = append(b, `,"summary_index":0,"delta":`...)
	} else {
		b = append(b, `,"content_index":0,"delta":`...)
	}
	b = appendTokens(b, g, reasoning, from, n)
	g.buf = g.stamp(b, kind, n)
}

func (e responsesEncoder) finish(g *gen) {
	e.close(g)
	typ := "response.completed"
	if g.length {
		typ = "response.incomplete"
	}
	e.lifecycle(g, typ, true)
}

// errorEvent is the Responses API's error event; the stream ends there.
func (e responsesEncoder) errorEvent(g *gen) {
	b := e.event(g, "error")
	b = append(b, `,"code":"server_error","message":"mock: injected error event","param":null`...)
	g.buf = g.stamp(b, "error", 0)
}

func (e responsesEncoder) malformed(g *gen) {
	b := e.event(g, "response.output_text.delta")
	g.buf = append(b, `,"delta":"cut short`+"\n\n"...)
	g.unstamped("malformed")
}

func (e responsesEncoder) whole(g *gen, b []byte) []byte {
	var out []byte
	if g.reasoning > 0 {
		out = append(out, `{"id":"`...)
		out = e.itemID(out, g, true)
		out = append(out, `","type":"reasoning","summary":[{"type":"summary_text","text":`...)
		out = appendJSONString(out, fillerTokens.text(g.reasoning))
		out = append(out, `}]},`...)
	}
	out = append(out, `{"id":"`...)
	out = e.itemID(out, g, false)
	out = append(out, `","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":`...)
	out = appendJSONString(out, g.text.text(g.total-g.reasoning))
	out = append(out, `,"annotations":[]}]}`...)
	return g.stampJSON(e.object(b, g, true, out))
}
