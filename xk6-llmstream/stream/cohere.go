package stream

import (
	"fmt"

	"github.com/valyala/fastjson"
)

// cohereDecoder decodes Cohere's v2 chat stream. The event type is the JSON
// "type", else the SSE event name. Every payload sits under
// delta.message:
//   - content-start / content-delta: content.text is answer text,
//     content.thinking reasoning;
//   - tool-plan-delta: tool_plan, the model's plan before it calls tools, is
//     reasoning;
//   - tool-call-start begins a tool call (its function name is tool text);
//     tool-call-delta streams its function.arguments;
//   - message-end ends the stream with delta.finish_reason and delta.usage
//     (tokens.input_tokens / output_tokens, else billed_units; cached_tokens).
//     finish_reason ERROR is a stream error.
type cohereDecoder struct {
	p     fastjson.Parser
	calls int // tool-call-start events so far
}

// unindexedKey keys the tool calls of events without an index apart from
// indexed ones.
const unindexedKey = 1 << 30

func (c *cohereDecoder) decode(ev *Event, d *delta) error {
	v, err := parseEventObject(&c.p, ev, d)
	if v == nil {
		return err
	}
	d.shape = Cohere
	typ, err := eventType(v, ev)
	if err != nil {
		return err
	}
	dl, err := getObject(v, "delta")
	if err != nil {
		return err
	}
	var msg *fastjson.Value
	if dl != nil {
		if msg, err = getObject(dl, "message"); err != nil {
			return err
		}
	}
	switch typ {
	case "content-start", "content-delta":
		if msg == nil {
			return nil
		}
		content, err := getObject(msg, "content")
		if err != nil || content == nil {
			return err
		}
		if d.answer, err = getString(content, "text"); err != nil {
			return err
		}
		d.reasoning, err = getString(content, "thinking")
		return err
	case "tool-plan-delta":
		if msg != nil {
			d.reasoning, err = getString(msg, "tool_plan")
		}
		return err
	case "tool-call-start", "tool-call-delta":
		if typ == "tool-call-start" {
			d.newTools = 1
			c.calls++
		}
		key, err := blockIndex(v)
		if err != nil {
			return err
		}
		if key < 0 { // no index: the latest call
			key = unindexedKey + c.calls
		}
		if msg != nil {
			return cohereToolCall(msg, key, d)
		}
	case "message-end":
		d.end, d.terminal = true, true
		if dl != nil {
			return cohereEnd(dl, d)
		}
	case "error":
		d.isStreamErr, d.streamErr = true, valueErrorMessage(v.Get("message"))
		if d.streamErr == "" {
			d.streamErr = string(ev.Data)
		}
	case "":
		if err := notOpenAI(v, Cohere); err != nil {
			return err
		}
		return fmt.Errorf("event has no \"type\" field and no SSE event name")
	}
	return nil
}

// cohereToolCall notes a tool-call fragment: delta.message.tool_calls, one
// object (as Cohere sends it) or a list of them.
// key is the event's index (the call's toolFrag key).
func cohereToolCall(msg *fastjson.Value, key int, d *delta) error {
	tc := msg.Get("tool_calls")
	calls := []*fastjson.Value{tc}
	switch {
	case isNull(tc):
		return nil
	case tc.Type() == fastjson.TypeArray:
		calls, _ = tc.Array()
	case tc.Type() != fastjson.TypeObject:
		return typeError("tool_calls", tc, "an object or an array")
	}
	for _, call := range calls {
		if call.Type() != fastjson.TypeObject {
			continue
		}
		fn, err := getObject(call, "function")
		if err != nil {
			return err
		}
		if fn != nil && (len(fn.GetStringBytes("name")) > 0 || hasArguments(fn.Get("arguments"))) {
			d.toolText = true
		}
		if fn != nil {
			d.addTool(key, call.GetStringBytes("id"), fn.GetStringBytes("name"), argsBytes(fn.Get("arguments"), nil), false)
		}
	}
	return nil
}

// cohereEnd reads message-end's finish reason and usage.
func cohereEnd(dl *fastjson.Value, d *delta) error {
	fin, err := getString(dl, "finish_reason")
	if err != nil {
		return err
	}
	d.finish = string(fin)
	if d.finish == "ERROR" {
		d.isStreamErr, d.streamErr = true, "finish_reason ERROR"
		if e := valueErrorMessage(dl.Get("error")); e != "" {
			d.streamErr += ": " + e
		}
	}
	u, err := getObject(dl, "usage")
	if err != nil || u == nil {
		return err
	}
	tok, err := getObject(u, "tokens")
	if err != nil {
		return err
	}
	if tok == nil {
		if tok, err = getObject(u, "billed_units"); err != nil || tok == nil {
			return err
		}
	}
	if d.output, d.hasOutput, err = getInt(tok, "output_tokens"); err != nil {
		return err
	}
	if d.input, d.hasInput, err = getInt(tok, "input_tokens"); err != nil {
		return err
	}
	d.cached, _, err = getInt(u, "cached_tokens")
	return err
}
