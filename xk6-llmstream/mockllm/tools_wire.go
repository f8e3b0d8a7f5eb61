package mockllm

import "strconv"

// The tool-call events of each dialect (see tools.go). An event that only
// names the call is kind "tool"; an event with arguments is kind
// "tool_args" and carries its pieces as output tokens.

// OpenAI chat: a delta naming the call (id, type, name, empty arguments),
// then deltas of arguments, as OpenAI streams them; finish_reason
// "tool_calls".
func (e chatEncoder) toolToken(g *gen, from, n int) {
	t := g.tool
	if from == 0 {
		d := append([]byte(nil), `{"tool_calls":[{"index":0,"id":`...)
		d = appendJSONString(d, t.id)
		d = append(d, `,"type":"function","function":{"name":`...)
		d = appendJSONString(d, t.name)
		d = append(d, `,"arguments":""}}]}`...)
		e.chunk(g, d, "", g.sent, "tool", 0)
	}
	d := append([]byte(nil), `{"tool_calls":[{"index":0,"function":{"arguments":`...)
	d = appendJSONString(d, t.piece(from, n))
	d = append(d, `}}]}`...)
	e.chunk(g, d, "", g.sent+n, "tool_args", n)
}

// Anthropic: a tool_use content block (after the thinking block, if any),
// input_json_delta fragments, content_block_stop; stop_reason "tool_use".
func (e messagesEncoder) toolToken(g *gen, from, n int) {
	t := g.tool
	if from == 0 {
		index := 0
		if g.reasoning > 0 {
			e.blockStop(g)
			index = g.st.block + 1
		}
		b := e.event(g.buf, "content_block_start")
		b = append(b, `{"type":"content_block_start","index":`...)
		b = appendInt(b, index)
		b = append(b, `,"content_block":{"type":"tool_use","id":`...)
		b = appendJSONString(b, t.id)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, t.name)
		b = append(b, `,"input":{}}`...)
		g.buf = g.stamp(b, "tool", 0)
		g.st.blockOpen, g.st.block, g.st.inReasoning = true, index, false
	}
	b := e.event(g.buf, "content_block_delta")
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = appendInt(b, g.st.block)
	b = append(b, `,"delta":{"type":"input_json_delta","partial_json":`...)
	b = appendJSONString(b, t.piece(from, n))
	b = append(b, '}')
	g.buf = g.stamp(b, "tool_args", n)
}

// Responses: a function_call output item, function_call_arguments.delta
// events, .done with the whole arguments, output_item.done.
func (e responsesEncoder) toolToken(g *gen, from, n int) {
	if from == 0 {
		if g.st.blockOpen {
			e.close(g, "completed")
		}
		b := e.event(g, "response.output_item.added")
		b = append(b, `,"output_index":`...)
		b = appendInt(b, g.st.block)
		b = append(b, `,"item":`...)
		b = e.toolItem(b, g, 0, "in_progress")
		g.buf = g.stamp(b, "tool", 0)
		g.st.blockOpen, g.st.inReasoning = true, false
	}
	b := e.toolHead(g, "response.function_call_arguments.delta")
	b = append(b, `,"delta":`...)
	b = appendJSONString(b, g.tool.piece(from, n))
	g.buf = g.stamp(b, "tool_args", n)
}

// toolHead opens an event about the function_call item.
func (e responsesEncoder) toolHead(g *gen, typ string) []byte {
	b := e.event(g, typ)
	b = append(b, `,"item_id":"fc_mock_`...)
	b = strconv.AppendUint(b, g.seq, 10)
	b = append(b, `","output_index":`...)
	return appendInt(b, g.st.block)
}

// toolItem appends the function_call item with its first n pieces.
func (e responsesEncoder) toolItem(b []byte, g *gen, n int, status string) []byte {
	t := g.tool
	b = append(b, `{"id":"fc_mock_`...)
	b = strconv.AppendUint(b, g.seq, 10)
	b = append(b, `","type":"function_call","status":"`...)
	b = append(b, status...)
	b = append(b, `","arguments":`...)
	args := ""
	if n > 0 {
		args = t.piece(0, n)
	}
	b = appendJSONString(b, args)
	b = append(b, `,"call_id":`...)
	b = appendJSONString(b, t.id)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, t.name)
	return append(b, '}')
}

// toolClose ends the function_call item.
func (e responsesEncoder) toolClose(g *gen, status string) {
	n := g.sent - min(g.sent, g.reasoning)
	b := e.toolHead(g, "response.function_call_arguments.done")
	b = append(b, `,"arguments":`...)
	args := ""
	if n > 0 {
		args = g.tool.piece(0, n)
	}
	b = appendJSONString(b, args)
	g.buf = g.stamp(b, "response.function_call_arguments.done", 0)
	b = e.event(g, "response.output_item.done")
	b = append(b, `,"output_index":`...)
	b = appendInt(b, g.st.block)
	b = append(b, `,"item":`...)
	b = e.toolItem(b, g, n, status)
	g.buf = g.stamp(b, "response.output_item.done", 0)
	g.st.blockOpen = false
	g.st.block++
}

// Cohere v2: tool-call-start (id, name), tool-call-delta (arguments),
// tool-call-end; finish_reason TOOL_CALL.
func (e cohereEncoder) toolToken(g *gen, from, n int) {
	t := g.tool
	if from == 0 {
		e.blockEnd(g)
		b := e.event(g, "tool-call-start")
		b = append(b, `,"index":`...)
		b = appendInt(b, g.st.block)
		b = append(b, `,"delta":{"message":{"tool_calls":{"id":`...)
		b = appendJSONString(b, t.id)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = appendJSONString(b, t.name)
		b = append(b, `,"arguments":""}}}}`...)
		g.buf = g.stamp(b, "tool", 0)
	}
	b := e.event(g, "tool-call-delta")
	b = append(b, `,"index":`...)
	b = appendInt(b, g.st.block)
	b = append(b, `,"delta":{"message":{"tool_calls":{"function":{"arguments":`...)
	b = appendJSONString(b, t.piece(from, n))
	b = append(b, "}}}}"...)
	g.buf = g.stamp(b, "tool_args", n)
}

// toolEnd writes tool-call-end.
func (e cohereEncoder) toolEnd(g *gen) {
	b := e.event(g, "tool-call-end")
	b = append(b, `,"index":`...)
	b = appendInt(b, g.st.block)
	g.buf = g.stamp(b, "tool-call-end", 0)
	g.st.block++
}

// Gemini: one functionCall part with the whole args object.
func (e geminiEncoder) toolToken(g *gen, from, n int) {
	t := g.tool
	part := append([]byte(nil), `{"functionCall":{"name":`...)
	part = appendJSONString(part, t.name)
	part = append(part, `,"args":`...)
	part = append(part, t.piece(from, n)...)
	part = append(part, "}}"...)
	b := append(g.buf, "data: "...)
	g.buf = g.stamp(e.candidate(b, g, part, "", g.sent+n), "tool_args", n)
}

// ollama: one chunk with message.tool_calls, the arguments an object.
func (e ollamaEncoder) toolToken(g *gen, from, n int) {
	t := g.tool
	b := append(g.buf, e.head(g)...)
	b = append(b, `,"content":"","tool_calls":[{"function":{"name":`...)
	b = appendJSONString(b, t.name)
	b = append(b, `,"arguments":`...)
	b = append(b, t.piece(from, n)...)
	g.buf = g.stamp(append(b, `}}]},"done":false`...), "tool_args", n)
}
