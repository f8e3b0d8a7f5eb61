package stream

import (
	"fmt"

	"github.com/valyala/fastjson"
)

// openAIDecoder decodes OpenAI chat completions chunks (choices[].delta) and
// legacy completions chunks (choices[].text) alike: the two share one
// envelope, and accepting both costs nothing. It also serves the many
// OpenAI-compatible servers (vLLM, llama.cpp, Ollama, SGLang, TGI, DeepSeek,
// Azure, OpenRouter, ...).
type openAIDecoder struct {
	p         fastjson.Parser
	tools     []toolKey // tool calls seen so far, to count each once
	calls     int       // tool calls begun so far
	ans, reas []byte    // the current event's text, reused
	idTokens  int       // output tokens counted from choices[].token_ids so far (vLLM)
}

type toolKey struct {
	choice, index int
	id            string
	call          int // the call's number in the stream (toolFrag key)
}

func (o *openAIDecoder) decode(ev *Event, d *delta) error {
	data := ev.Data
	v, err := parseEventObject(&o.p, ev, d)
	if v == nil {
		return err
	}
	if e := v.Get("error"); !isNull(e) || string(ev.Type) == "error" {
		msg := valueErrorMessage(e)
		if msg == "" {
			msg = string(data)
		}
		d.isStreamErr, d.streamErr = true, msg
		// Keep everything else the chunk says (OpenRouter sends its usage on
		// the error chunk); the error event itself is the failure, so what
		// cannot be decoded beside it is ignored.
		if model, err := getString(v, "model"); err == nil {
			d.model = model
		}
		if u := openAIUsage(v, d); u != nil {
			d.hasOutput, d.hasInput, d.hasReasoningTok = false, false, false
		}
		return nil
	}
	choices, err := getArray(v, "choices")
	if err != nil {
		return err
	}
	if choices == nil && isNull(v.Get("object")) {
		if typ := v.GetStringBytes("type"); len(typ) > 0 {
			return fmt.Errorf("event has \"type\":%q and no \"choices\": not an OpenAI chat or completions chunk (for an Anthropic stream use dialect %q or %q)", typ, AnthropicMessages, DialectAuto)
		}
	}
	model, err := getString(v, "model")
	if err != nil {
		return err
	}
	d.model = model
	ans, reas := o.ans[:0], o.reas[:0]
	sawIDs := false
	for i, ch := range choices {
		if ch.Type() != fastjson.TypeObject {
			return fmt.Errorf("choices[%d] is a JSON %s, want an object", i, ch.Type())
		}
		ids, err := o.choice(ch, &ans, &reas, d)
		if err != nil {
			return err
		}
		sawIDs = sawIDs || ids
	}
	o.ans, o.reas = ans, reas
	d.answer, d.reasoning = ans, reas
	if err := openAIUsage(v, d); err != nil {
		return err
	}
	if sawIDs && !d.hasOutput {
		d.output, d.hasOutput = o.idTokens, true
	}
	return llamaCppTimings(v, d)
}

// choice decodes one element of choices, appending its answer and reasoning
// text; ids reports whether it carried token_ids (vLLM's return_token_ids),
// whose count is added to o.idTokens.
func (o *openAIDecoder) choice(ch *fastjson.Value, ans, reas *[]byte, d *delta) (ids bool, err error) {
	fin, err := getString(ch, "finish_reason")
	if err != nil {
		return false, err
	}
	if len(fin) > 0 {
		d.finish = string(fin)
		d.end = true
	}
	if tid, err := getArray(ch, "token_ids"); err != nil {
		return false, err
	} else if tid != nil {
		o.idTokens += len(tid)
		ids = true
	}
	if t := ch.Get("text"); t != nil {
		d.shape = OpenAICompletions
		if *ans, err = appendText(*ans, ch, "text"); err != nil {
			return false, err
		}
	}
	dl, err := getObject(ch, "delta")
	if err != nil {
		return false, err
	}
	if dl != nil {
		d.shape = OpenAIChat
	} else if dl, err = getObject(ch, "message"); err != nil {
		return false, err
	}
	if dl == nil {
		return ids, nil
	}
	if *ans, *reas, err = appendContent(*ans, *reas, dl, "content"); err != nil {
		return false, err
	}
	if *ans, err = appendText(*ans, dl, "refusal"); err != nil {
		return false, err
	}
	if *reas, err = appendReasoning(*reas, dl); err != nil {
		return false, err
	}
	calls, err := getArray(dl, "tool_calls")
	if err != nil || len(calls) == 0 {
		return ids, err
	}
	choice, _, err := getInt(ch, "index")
	if err != nil {
		return false, err
	}
	return ids, o.toolCalls(calls, choice, d)
}

// appendContent appends a delta's content: a string, null, or a list of parts
// whose "text" parts are answer text and whose "thinking" parts (Mistral:
// {"type":"thinking","thinking":[{"type":"text","text":…}]}, or a string)
// are reasoning.
func appendContent(ans, reas []byte, o *fastjson.Value, field string) ([]byte, []byte, error) {
	v := o.Get(field)
	if isNull(v) || v.Type() != fastjson.TypeArray {
		ans, err := appendText(ans, o, field)
		return ans, reas, err
	}
	parts, _ := v.Array()
	for _, p := range parts {
		if p.Type() != fastjson.TypeObject {
			continue
		}
		if string(p.GetStringBytes("type")) == "thinking" || p.Get("text") == nil && p.Get("thinking") != nil {
			var err error
			if reas, err = appendText(reas, p, "thinking"); err != nil {
				return ans, reas, err
			}
			continue
		}
		if t := p.Get("text"); t != nil && t.Type() == fastjson.TypeString {
			b, _ := t.StringBytes()
			ans = append(ans, b...)
		}
	}
	return ans, reas, nil
}

// appendReasoning appends a delta's reasoning, counted once although servers
// send it under several names: reasoning_content (DeepSeek, vLLM), else
// reasoning (OpenRouter, Groq, vLLM, ollama), else the text of OpenRouter's
// reasoning_details, which repeats reasoning when both are sent.
func appendReasoning(reas []byte, dl *fastjson.Value) ([]byte, error) {
	n := len(reas)
	reas, err := appendText(reas, dl, "reasoning_content")
	if err != nil || len(reas) > n {
		return reas, err
	}
	if reas, err = appendText(reas, dl, "reasoning"); err != nil || len(reas) > n {
		return reas, err
	}
	det, err := getArray(dl, "reasoning_details")
	if err != nil {
		return reas, err
	}
	for _, p := range det {
		if p.Type() != fastjson.TypeObject {
			continue
		}
		for _, f := range []string{"text", "summary"} {
			if t := p.Get(f); t != nil && t.Type() == fastjson.TypeString {
				b, _ := t.StringBytes()
				reas = append(reas, b...)
			}
		}
	}
	return reas, nil
}

// openAIUsage reads a chunk's usage, or Groq's x_groq.usage when there is no
// top-level one.
func openAIUsage(v *fastjson.Value, d *delta) error {
	u, err := getObject(v, "usage")
	if err != nil {
		return err
	}
	if u == nil {
		xg, err := getObject(v, "x_groq")
		if err != nil || xg == nil {
			return err
		}
		if u, err = getObject(xg, "usage"); err != nil || u == nil {
			return err
		}
	}
	if d.output, d.hasOutput, err = getInt(u, "completion_tokens"); err != nil {
		return err
	}
	if d.input, d.hasInput, err = getInt(u, "prompt_tokens"); err != nil {
		return err
	}
	if d.reasoningTok, d.hasReasoningTok, err = getNestedInt(u, "completion_tokens_details", "reasoning_tokens"); err != nil {
		return err
	}
	if d.cached, _, err = getNestedInt(u, "prompt_tokens_details", "cached_tokens"); err != nil {
		return err
	}
	if d.cached == 0 { // DeepSeek
		d.cached, _, err = getInt(u, "prompt_cache_hit_tokens")
	}
	return err
}

// toolCalls notes the tool-call fragments of one choice.
func (o *openAIDecoder) toolCalls(calls []*fastjson.Value, choice int, d *delta) error {
	for j, tc := range calls {
		if tc.Type() != fastjson.TypeObject {
			return fmt.Errorf("tool_calls[%d] is a JSON %s, want an object", j, tc.Type())
		}
		idx, ok, err := getInt(tc, "index")
		if err != nil {
			return err
		}
		if !ok {
			idx = j
		}
		id, err := getString(tc, "id")
		if err != nil {
			return err
		}
		fn, err := getObject(tc, "function")
		if err != nil {
			return err
		}
		isNew, key := o.noteTool(choice, idx, string(id))
		d.newTools += isNew
		var name, args []byte
		if fn != nil {
			if name, err = getString(fn, "name"); err != nil {
				return err
			}
			if len(name) > 0 || hasArguments(fn.Get("arguments")) {
				d.toolText = true
			}
			args = argsBytes(fn.Get("arguments"), nil)
		}
		d.addTool(key, id, name, args, false)
	}
	return nil
}

// noteTool records a tool-call fragment and returns 1 when it begins a new
// call: a (choice, index) pair not seen before, or a new id for a known pair;
// key is the call's number in the stream.
func (o *openAIDecoder) noteTool(choice, index int, id string) (isNew, key int) {
	for i := range o.tools {
		t := &o.tools[i]
		if t.choice == choice && t.index == index {
			if id == "" || id == t.id || t.id == "" {
				if t.id == "" {
					t.id = id
				}
				return 0, t.call
			}
			t.id, t.call = id, o.calls
			o.calls++
			return 1, t.call
		}
	}
	o.tools = append(o.tools, toolKey{choice, index, id, o.calls})
	o.calls++
	return 1, o.calls - 1
}
