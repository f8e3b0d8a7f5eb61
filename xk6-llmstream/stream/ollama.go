package stream

import (
	"github.com/valyala/fastjson"
)

// ollamaDecoder decodes ollama's native stream, one JSON object a line
// (NDJSON): /api/chat chunks carry message.content, message.thinking and
// message.tool_calls; /api/generate chunks carry response and thinking. The
// last chunk has done:true, done_reason, prompt_eval_count, eval_count and
// the server's own durations in nanoseconds (Record.ServerTimings). An
// {"error": …} line is a stream error.
type ollamaDecoder struct {
	p         fastjson.Parser
	ans, reas []byte
}

func (o *ollamaDecoder) decode(ev *Event, d *delta) error {
	v, err := parseEventObject(&o.p, ev, d)
	if v == nil {
		return err
	}
	d.shape = Ollama
	if e := v.Get("error"); !isNull(e) {
		d.isStreamErr, d.streamErr = true, valueErrorMessage(e)
		return nil
	}
	if err := notOpenAI(v, Ollama); err != nil {
		return err
	}
	if d.model, err = getString(v, "model"); err != nil {
		return err
	}
	ans, reas := o.ans[:0], o.reas[:0]
	m, err := getObject(v, "message")
	if err != nil {
		return err
	}
	src := v // /api/generate: response and thinking at the top level
	field := "response"
	if m != nil {
		src, field = m, "content"
		if err := ollamaToolCalls(m, d); err != nil {
			return err
		}
	}
	if ans, err = appendText(ans, src, field); err != nil {
		return err
	}
	if reas, err = appendText(reas, src, "thinking"); err != nil {
		return err
	}
	o.ans, o.reas = ans, reas
	d.answer, d.reasoning = ans, reas
	done := v.Get("done")
	if isNull(done) {
		return nil
	}
	if done.Type() != fastjson.TypeTrue && done.Type() != fastjson.TypeFalse {
		return typeError("done", done, "a boolean")
	}
	if done.Type() == fastjson.TypeFalse {
		return nil
	}
	d.end, d.terminal = true, true
	fin, err := getString(v, "done_reason")
	if err != nil {
		return err
	}
	d.finish = string(fin)
	if d.output, d.hasOutput, err = getInt(v, "eval_count"); err != nil {
		return err
	}
	if d.input, d.hasInput, err = getInt(v, "prompt_eval_count"); err != nil {
		return err
	}
	return ollamaTimings(v, d)
}

// ollamaToolCalls counts message.tool_calls: ollama sends each call whole,
// in one chunk.
func ollamaToolCalls(m *fastjson.Value, d *delta) error {
	calls, err := getArray(m, "tool_calls")
	if err != nil {
		return err
	}
	for _, c := range calls {
		d.newTools++
		if c.Type() != fastjson.TypeObject {
			continue
		}
		fn, err := getObject(c, "function")
		if err != nil {
			return err
		}
		if fn != nil && (len(fn.GetStringBytes("name")) > 0 || hasArguments(fn.Get("arguments"))) {
			d.toolText = true
		}
		if fn != nil {
			d.addTool(-1, c.GetStringBytes("id"), fn.GetStringBytes("name"), argsBytes(fn.Get("arguments"), nil), true)
		}
	}
	return nil
}

// hasArguments reports whether a tool call's arguments value holds anything:
// a non-empty string or object, or any other non-null value.
func hasArguments(args *fastjson.Value) bool {
	switch {
	case isNull(args):
		return false
	case args.Type() == fastjson.TypeString:
		b, _ := args.StringBytes()
		return len(b) > 0
	case args.Type() == fastjson.TypeObject:
		o, _ := args.Object()
		return o.Len() > 0
	}
	return true
}
