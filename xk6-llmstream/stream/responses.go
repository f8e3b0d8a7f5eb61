package stream

import (
	"fmt"
	"strings"

	"github.com/valyala/fastjson"
)

// responsesDecoder decodes the OpenAI Responses API stream. The event type is
// the JSON "type", else the SSE event name (servers send either or both).
//   - response.output_text.delta and response.refusal.delta are answer text;
//     response.reasoning_summary_text.delta and response.reasoning_text.delta
//     are reasoning;
//   - a function_call (or custom_tool_call, mcp_call) output item is a tool
//     call: its name counts as tool text when the item is added, its
//     arguments as they stream (…_arguments.delta, …_input.delta) or, for
//     servers that send only the finished arguments, at …arguments.done or
//     output_item.done;
//   - response.completed, response.incomplete and response.failed end the
//     stream with usage and the finish reason (incomplete_details.reason, else
//     status); response.failed and "error" events are stream errors.
//
// *.done events repeat text already streamed and carry none of their own.
type responsesDecoder struct {
	p     fastjson.Parser
	items []respItem // tool-call output items seen
}

// respItem is one tool-call output item: what of it has counted as text.
type respItem struct {
	index     int // output_index, -1 if none
	id        string
	named     bool // its name counted
	argsShown bool // some of its arguments counted
}

func (r *responsesDecoder) decode(ev *Event, d *delta) error {
	v, err := parseEventObject(&r.p, ev, d)
	if v == nil {
		return err
	}
	d.shape = OpenAIResponses
	typ, err := eventType(v, ev)
	if err != nil {
		return err
	}
	switch typ {
	case "response.created", "response.in_progress", "response.queued":
		return r.response(v, d, false)
	case "response.completed", "response.incomplete", "response.failed":
		return r.response(v, d, true)
	case "response.output_text.delta", "response.refusal.delta":
		d.answer, err = getString(v, "delta")
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		d.reasoning, err = getString(v, "delta")
	case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta", "response.mcp_call_arguments.delta":
		return r.arguments(v, d, "delta", true)
	case "response.function_call_arguments.done", "response.custom_tool_call_input.done", "response.mcp_call_arguments.done":
		field := "arguments"
		if strings.Contains(typ, "input") {
			field = "input"
		}
		return r.arguments(v, d, field, false)
	case "response.output_item.added", "response.output_item.done":
		return r.outputItem(v, d)
	case "error":
		d.isStreamErr, d.streamErr = true, responsesError(v)
	case "":
		if err := notOpenAI(v, OpenAIResponses); err != nil {
			return err
		}
		return fmt.Errorf("event has no \"type\" field and no SSE event name")
	}
	return err
}

// response reads the response object of response.created/in_progress (the
// model) and of the final events (usage, finish reason, failure).
func (r *responsesDecoder) response(v *fastjson.Value, d *delta, final bool) error {
	resp, err := getObject(v, "response")
	if err != nil || resp == nil {
		if final {
			d.end, d.terminal = true, true
		}
		return err
	}
	if d.model, err = getString(resp, "model"); err != nil || !final {
		return err
	}
	d.end, d.terminal = true, true
	status, err := getString(resp, "status")
	if err != nil {
		return err
	}
	d.finish = string(status)
	inc, err := getObject(resp, "incomplete_details")
	if err != nil {
		return err
	}
	if inc != nil {
		reason, err := getString(inc, "reason")
		if err != nil {
			return err
		}
		if len(reason) > 0 {
			d.finish = string(reason)
		}
	}
	if string(v.GetStringBytes("type")) == "response.failed" || d.finish == "failed" {
		d.isStreamErr, d.streamErr = true, "response failed"
		if msg := valueErrorMessage(resp.Get("error")); msg != "" {
			d.streamErr = msg
		}
	}
	return responsesUsage(resp, d)
}

// responsesUsage reads response.usage.
func responsesUsage(resp *fastjson.Value, d *delta) error {
	u, err := getObject(resp, "usage")
	if err != nil || u == nil {
		return err
	}
	if d.output, d.hasOutput, err = getInt(u, "output_tokens"); err != nil {
		return err
	}
	if d.input, d.hasInput, err = getInt(u, "input_tokens"); err != nil {
		return err
	}
	if d.reasoningTok, d.hasReasoningTok, err = getNestedInt(u, "output_tokens_details", "reasoning_tokens"); err != nil {
		return err
	}
	d.cached, _, err = getNestedInt(u, "input_tokens_details", "cached_tokens")
	return err
}

// item returns the tool-call item an event names by output_index or
// item_id, adding it (and counting a new tool call) when it is new.
// key is the item's position among them (its toolFrag key).
func (r *responsesDecoder) item(v *fastjson.Value, id []byte, d *delta) (it *respItem, key int, err error) {
	idx, ok, err := getInt(v, "output_index")
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		idx = -1
	}
	for i := range r.items {
		it := &r.items[i]
		if (idx >= 0 && it.index == idx) || (len(id) > 0 && it.id == string(id)) {
			return it, i, nil
		}
	}
	d.newTools++
	r.items = append(r.items, respItem{index: idx, id: string(id)})
	return &r.items[len(r.items)-1], len(r.items) - 1, nil
}

// arguments handles a tool call's arguments: streamed fragments, or the whole
// arguments, which count only if no fragment did.
func (r *responsesDecoder) arguments(v *fastjson.Value, d *delta, field string, fragment bool) error {
	id, err := getString(v, "item_id")
	if err != nil {
		return err
	}
	it, key, err := r.item(v, id, d)
	if err != nil {
		return err
	}
	args, err := getString(v, field)
	if err != nil || len(args) == 0 {
		return err
	}
	d.addTool(key, nil, nil, args, !fragment)
	if !fragment && it.argsShown {
		return nil
	}
	it.argsShown, d.toolText = true, true
	return nil
}

// outputItem handles output_item.added and .done: only tool-call items
// matter; whatever of their name and arguments has not counted yet does.
func (r *responsesDecoder) outputItem(v *fastjson.Value, d *delta) error {
	item, err := getObject(v, "item")
	if err != nil || item == nil {
		return err
	}
	switch string(item.GetStringBytes("type")) {
	case "function_call", "custom_tool_call", "mcp_call":
	default:
		return nil
	}
	id, err := getString(item, "id")
	if err != nil {
		return err
	}
	it, key, err := r.item(v, id, d)
	if err != nil {
		return err
	}
	name, err := getString(item, "name")
	if err != nil {
		return err
	}
	callID, err := getString(item, "call_id")
	if err != nil {
		return err
	}
	if len(name) > 0 && !it.named {
		it.named, d.toolText = true, true
	}
	args := item.Get("arguments")
	if isNull(args) {
		args = item.Get("input")
	}
	d.addTool(key, callID, name, argsBytes(args, nil), true)
	if hasArguments(args) && !it.argsShown {
		it.argsShown, d.toolText = true, true
	}
	return nil
}

// responsesError words an "error" event: {"type":"error","code","message"}
// as documented, or the error object nested under "error" as some servers
// send it.
func responsesError(v *fastjson.Value) string {
	if msg := valueErrorMessage(v.Get("error")); msg != "" {
		return msg
	}
	code, msg := string(v.GetStringBytes("code")), string(v.GetStringBytes("message"))
	switch {
	case code != "" && msg != "":
		return code + ": " + msg
	case msg != "":
		return msg
	case code != "":
		return code
	}
	return v.String()
}
