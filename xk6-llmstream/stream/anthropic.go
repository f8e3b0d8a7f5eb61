package stream

import (
	"fmt"

	"github.com/valyala/fastjson"
)

// anthropicDecoder decodes Anthropic Messages stream events: message_start
// (model, input usage), content_block_start, content_block_delta (text_delta,
// thinking_delta, input_json_delta; signature_delta and citations_delta carry
// no generated text), content_block_stop, message_delta (stop reason,
// cumulative output usage), message_stop, ping and error.
type anthropicDecoder struct {
	p fastjson.Parser
}

func (a *anthropicDecoder) decode(ev *Event, d *delta) error {
	data := ev.Data
	v, err := parseEventObject(&a.p, ev, d)
	if v == nil {
		return err
	}
	typ, err := eventType(v, ev)
	if err != nil {
		return err
	}
	switch typ {
	case "message_start":
		return anthropicMessageStart(v, d)
	case "content_block_start":
		return anthropicBlockStart(v, d)
	case "content_block_delta":
		return anthropicBlockDelta(v, d)
	case "message_delta":
		return anthropicMessageDelta(v, d)
	case "message_stop":
		d.end, d.terminal = true, true
	case "error":
		msg := valueErrorMessage(v.Get("error"))
		if msg == "" {
			msg = string(data)
		}
		d.isStreamErr, d.streamErr = true, msg
	case "":
		if obj := v.GetStringBytes("object"); len(obj) > 0 {
			return fmt.Errorf("event has \"object\":%q and no \"type\": this looks like an OpenAI stream, not Anthropic (use dialect %q or %q)", obj, OpenAIChat, DialectAuto)
		}
		return fmt.Errorf("event has no \"type\" field and no SSE event name")
	}
	return nil
}

// anthropicMessageStart decodes message_start: the model and the input tokens.
func anthropicMessageStart(v *fastjson.Value, d *delta) error {
	d.shape = AnthropicMessages
	m, err := getObject(v, "message")
	if err != nil || m == nil {
		return err
	}
	model, err := getString(m, "model")
	if err != nil {
		return err
	}
	d.model = model
	u, err := getObject(m, "usage")
	if err != nil || u == nil {
		return err
	}
	return anthropicInput(u, d)
}

// anthropicBlockStart decodes content_block_start: the first text, thinking or tool call of a block.
func anthropicBlockStart(v *fastjson.Value, d *delta) error {
	b, err := getObject(v, "content_block")
	if err != nil || b == nil {
		return err
	}
	switch bt := string(b.GetStringBytes("type")); bt {
	case "text":
		d.answer, err = getString(b, "text")
	case "thinking":
		d.reasoning, err = getString(b, "thinking")
	case "tool_use", "server_tool_use", "mcp_tool_use":
		d.newTools = 1
		var name, id []byte
		if name, err = getString(b, "name"); err != nil {
			return err
		}
		if id, err = getString(b, "id"); err != nil {
			return err
		}
		d.toolText = len(name) > 0
		index, err := blockIndex(v)
		if err != nil {
			return err
		}
		// input is {} at the start and streams as input_json_delta; a
		// server that sends it whole here is kept unless fragments follow.
		d.addTool(index, id, name, wholeInput(b.Get("input")), true)
	}
	return err
}

// blockIndex is an event's content block index; -1 (a new call) when absent.
func blockIndex(v *fastjson.Value) (int, error) {
	i, ok, err := getInt(v, "index")
	if !ok {
		i = -1
	}
	return i, err
}

// wholeInput is a tool_use block's input as JSON text, nil when empty.
func wholeInput(in *fastjson.Value) []byte {
	if isNull(in) {
		return nil
	}
	if o, err := in.Object(); err == nil && o.Len() == 0 {
		return nil
	}
	return in.MarshalTo(nil)
}

// anthropicBlockDelta decodes content_block_delta: more text, thinking or tool-call arguments.
func anthropicBlockDelta(v *fastjson.Value, d *delta) error {
	dl, err := getObject(v, "delta")
	if err != nil || dl == nil {
		return err
	}
	switch string(dl.GetStringBytes("type")) {
	case "text_delta":
		d.answer, err = getString(dl, "text")
	case "thinking_delta":
		d.reasoning, err = getString(dl, "thinking")
	case "input_json_delta":
		var js []byte
		if js, err = getString(dl, "partial_json"); err != nil {
			return err
		}
		d.toolText = len(js) > 0
		index, err := blockIndex(v)
		if err != nil {
			return err
		}
		d.addTool(index, nil, nil, js, false)
	}
	return err
}

// anthropicMessageDelta decodes message_delta: the stop reason and the usage so far.
func anthropicMessageDelta(v *fastjson.Value, d *delta) error {
	dl, err := getObject(v, "delta")
	if err != nil {
		return err
	}
	if dl != nil {
		stop, err := getString(dl, "stop_reason")
		if err != nil {
			return err
		}
		if len(stop) > 0 {
			d.finish, d.end = string(stop), true
		}
	}
	u, err := getObject(v, "usage")
	if err != nil || u == nil {
		return err
	}
	if d.output, d.hasOutput, err = getInt(u, "output_tokens"); err != nil {
		return err
	}
	return anthropicInput(u, d)
}

// anthropicInput reads the prompt tokens the server processed: Anthropic
// reports cached prompt tokens apart from input_tokens; OpenAI's
// prompt_tokens includes them, so they are added up here to mean the same,
// and kept apart too (cache reads and writes).
func anthropicInput(u *fastjson.Value, d *delta) error {
	n, ok, err := getInt(u, "input_tokens")
	if err != nil || !ok {
		return err
	}
	if d.cacheCreation, _, err = getInt(u, "cache_creation_input_tokens"); err != nil {
		return err
	}
	if d.cached, _, err = getInt(u, "cache_read_input_tokens"); err != nil {
		return err
	}
	d.input, d.hasInput = n+d.cacheCreation+d.cached, true
	return nil
}
