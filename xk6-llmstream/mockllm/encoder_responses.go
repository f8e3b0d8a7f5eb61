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

// object appends the response object with status and output (the output
// items' JSON, without brackets) and closes it. A final object carries the
// usage of what was sent; a failed one the error.
func (e responsesEncoder) object(b []byte, g *gen, status string, output []byte) []byte {
	final := status != "in_progress"
	b = append(b, `{"id":"`...)
	b = append(b, g.id...)
	b = append(b, `","object":"response","created_at":`...)
	b = strconv.AppendInt(b, g.created, 10)
	b = append(b, `,"status":"`...)
	b = append(b, status...)
	b = append(b, `","error":`...)
	if status == "failed" {
		b = append(b, `{"code":"server_error","message":"`+responsesErrorMessage+`"}`...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"incomplete_details":`...)
	if status == "incomplete" {
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
	reasoning := min(g.sent, g.reasoning)
	b = append(b, `{"input_tokens":`...)
	b = appendInt(b, g.input)
	b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
	b = appendInt(b, g.cached)
	b = append(b, `},"output_tokens":`...)
	b = appendInt(b, g.sent)
	b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
	b = appendInt(b, reasoning)
	b = append(b, `},"total_tokens":`...)
	b = appendInt(b, g.input+g.sent)
	return append(b, "}}"...)
}

// responsesErrorMessage is the message of the injected error event.
const responsesErrorMessage = "mock: injected error event"

// finalStatus is the status of a response that ended normally.
func (responsesEncoder) finalStatus(g *gen) string {
	if g.length {
		return "incomplete"
	}
	return "completed"
}

// summaryPart appends a reasoning summary part holding the first n reasoning
// tokens: {"type":"summary_text","text":...}.
func (responsesEncoder) summaryPart(b []byte, n int) []byte {
	b = append(b, `{"type":"summary_text","text":`...)
	b = appendJSONString(b, fillerTokens.text(n))
	return append(b, '}')
}

// textPart appends a message content part holding the first n answer tokens.
func (responsesEncoder) textPart(b []byte, g *gen, n int) []byte {
	b = append(b, `{"type":"output_text","annotations":[],"logprobs":[],"text":`...)
	b = appendJSONString(b, g.text.text(n))
	return append(b, '}')
}

// itemJSON appends an output item as it stands once n of its phase's tokens
// were sent: the reasoning item with its summary, or the message with its
// content part (none while n is 0 and the item is in progress).
func (e responsesEncoder) itemJSON(b []byte, g *gen, reasoning bool, n int, status string) []byte {
	if g.tool != nil && !reasoning { // the answer is a function_call item
		return e.toolItem(b, g, n, status)
	}
	b = append(b, `{"id":"`...)
	b = e.itemID(b, g, reasoning)
	if reasoning {
		b = append(b, `","type":"reasoning","summary":[`...)
		if status != "in_progress" {
			b = e.summaryPart(b, n)
		}
		return append(b, "]}"...)
	}
	b = append(b, `","type":"message","status":"`...)
	b = append(b, status...)
	b = append(b, `","content":[`...)
	if status != "in_progress" {
		b = e.textPart(b, g, n)
	}
	return append(b, `],"role":"assistant"}`...)
}

// output appends the output items of what was sent so far, each with the
// status given (the message's; a reasoning item has none).
func (e responsesEncoder) output(b []byte, g *gen, status string) []byte {
	reasoning := min(g.sent, g.reasoning)
	if reasoning > 0 {
		b = e.itemJSON(b, g, true, reasoning, status)
	}
	if answer := g.sent - reasoning; answer > 0 {
		if reasoning > 0 {
			b = append(b, ',')
		}
		b = e.itemJSON(b, g, false, answer, status)
	}
	return b
}

// itemStatus is the status of the output items in a response of status st.
func itemStatus(st string) string {
	if st == "failed" {
		return "incomplete"
	}
	return st
}

// lifecycle writes response.created, .in_progress, .completed, .incomplete
// or .failed; the last three carry the output sent.
func (e responsesEncoder) lifecycle(g *gen, typ, status string) {
	b := e.event(g, typ)
	b = append(b, `,"response":`...)
	var out []byte
	if status != "in_progress" {
		out = e.output(nil, g, itemStatus(status))
	}
	b = e.object(b, g, status, out)
	g.buf = g.stamp(b, typ, 0)
}

// itemID is the id of the reasoning or the message output item.
func (e responsesEncoder) itemID(b []byte, g *gen, reasoning bool) []byte {
	if reasoning {
		b = append(b, "rs_mock_"...)
	} else {
		b = append(b, "msg_mock_"...)
	}
	return strconv.AppendUint(b, g.seq, 10)
}

// partHead opens an event about the open item's part: item_id, output_index,
// and summary_index or content_index 0.
func (e responsesEncoder) partHead(g *gen, typ string, reasoning bool) []byte {
	b := e.event(g, typ)
	b = append(b, `,"item_id":"`...)
	b = e.itemID(b, g, reasoning)
	b = append(b, `","output_index":`...)
	b = appendInt(b, g.st.block)
	if reasoning {
		return append(b, `,"summary_index":0`...)
	}
	return append(b, `,"content_index":0`...)
}

// open opens the output item of a phase and its summary or content part.
func (e responsesEncoder) open(g *gen, reasoning bool) {
	b := e.event(g, "response.output_item.added")
	b = append(b, `,"output_index":`...)
	b = appendInt(b, g.st.block)
	b = append(b, `,"item":`...)
	b = e.itemJSON(b, g, reasoning, 0, "in_progress")
	g.buf = g.stamp(b, "response.output_item.added", 0)

	typ := "response.content_part.added"
	if reasoning {
		typ = "response.reasoning_summary_part.added"
	}
	b = e.partHead(g, typ, reasoning)
	if reasoning {
		b = append(b, `,"part":{"type":"summary_text","text":""}`...)
	} else {
		b = append(b, `,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`...)
	}
	g.buf = g.stamp(b, typ, 0)
	g.st.blockOpen, g.st.inReasoning = true, reasoning
}

// close ends the open item as OpenAI does: the text's .done event repeating
// the whole text (a decoder must not count it again), the part's .done, then
// output_item.done with the whole item. status is the message's.
func (e responsesEncoder) close(g *gen, status string) {
	if !g.st.blockOpen {
		return
	}
	reasoning := g.st.inReasoning
	n := min(g.sent, g.reasoning)
	textDone, partDone := "response.output_text.done", "response.content_part.done"
	if reasoning {
		textDone, partDone = "response.reasoning_summary_text.done", "response.reasoning_summary_part.done"
	} else {
		n = g.sent - n
	}
	b := e.partHead(g, textDone, reasoning)
	if !reasoning {
		b = append(b, `,"logprobs":[]`...)
	}
	b = append(b, `,"text":`...)
	if reasoning {
		b = appendJSONString(b, fillerTokens.text(n))
	} else {
		b = appendJSONString(b, g.text.text(n))
	}
	g.buf = g.stamp(b, textDone, 0)

	b = e.partHead(g, partDone, reasoning)
	b = append(b, `,"part":`...)
	if reasoning {
		b = e.summaryPart(b, n)
	} else {
		b = e.textPart(b, g, n)
	}
	g.buf = g.stamp(b, partDone, 0)

	b = e.event(g, "response.output_item.done")
	b = append(b, `,"output_index":`...)
	b = appendInt(b, g.st.block)
	b = append(b, `,"item":`...)
	b = e.itemJSON(b, g, reasoning, n, status)
	g.buf = g.stamp(b, "response.output_item.done", 0)
	g.st.blockOpen = false
	g.st.block++
}

func (e responsesEncoder) preamble(g *gen) {
	e.lifecycle(g, "response.created", "in_progress")
	e.lifecycle(g, "response.in_progress", "in_progress")
}

func (e responsesEncoder) token(g *gen, reasoning bool, from, n int) {
	if g.st.blockOpen && reasoning != g.st.inReasoning {
		e.close(g, "completed")
	}
	if !g.st.blockOpen {
		e.open(g, reasoning)
	}
	typ, kind := "response.output_text.delta", "text"
	if reasoning {
		typ, kind = "response.reasoning_summary_text.delta", "reasoning"
	}
	b := e.partHead(g, typ, reasoning)
	b = append(b, `,"delta":`...)
	b = appendTokens(b, g, reasoning, from, n)
	if !reasoning {
		b = append(b, `,"logprobs":[]`...)
	}
	g.buf = g.stamp(b, kind, n)
}

func (e responsesEncoder) finish(g *gen) {
	status := e.finalStatus(g)
	if g.tool != nil && g.st.blockOpen && !g.st.inReasoning {
		e.toolClose(g, status)
	}
	e.close(g, status)
	e.lifecycle(g, "response."+status, status)
}

// errorEvent is the error event as OpenAI sends it (the error object nested
// under "error"), then response.failed with the output sent so far and its
// usage; the stream ends there.
func (e responsesEncoder) errorEvent(g *gen) {
	b := e.event(g, "error")
	b = append(b, `,"error":{"type":"server_error","code":"server_error","message":"`+responsesErrorMessage+`","param":null}`...)
	g.buf = g.stamp(b, "error", 0)
	e.lifecycle(g, "response.failed", "failed")
}

func (e responsesEncoder) malformed(g *gen) {
	b := e.event(g, "response.output_text.delta")
	g.buf = append(b, `,"delta":"cut short`+"\n\n"...)
	g.unstamped("malformed")
}

func (e responsesEncoder) whole(g *gen, b []byte) []byte {
	status := e.finalStatus(g)
	return g.stampJSON(e.object(b, g, status, e.output(nil, g, status)))
}
