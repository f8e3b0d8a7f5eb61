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
	ans, reas []byte    // the current event's text, reused
}

type toolKey struct {
	choice, index int
	id            string
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
	for i, ch := range choices {
		if ans, reas, err = o.choice(i, ch, ans, reas, d); err != nil {
			return err
		}
	}
	o.ans, o.reas = ans, reas
	d.answer, d.reasoning = ans, reas
	return openAIUsage(v, d)
}

// choice decodes one element of "choices": its finish reason, its text
// (completions), its delta or message (chat: answer, refusal, reasoning, tool
// calls), appending answer and reasoning text to ans and reas.
func (o *openAIDecoder) choice(i int, ch *fastjson.Value, ans, reas []byte, d *delta) ([]byte, []byte, error) {
	if ch.Type() != fastjson.TypeObject {
		return ans, reas, fmt.Errorf("choices[%d] is a JSON %s, want an object", i, ch.Type())
	}
	fin, err := getString(ch, "finish_reason")
	if err != nil {
		return ans, reas, err
	}
	if len(fin) > 0 {
		d.finish = string(fin)
		d.end = true
	}
	if t := ch.Get("text"); t != nil {
		d.shape = OpenAICompletions
		if ans, err = appendText(ans, ch, "text"); err != nil {
			return ans, reas, err
		}
	}
	dl, err := getObject(ch, "delta")
	if err != nil {
		return ans, reas, err
	}
	if dl != nil {
		d.shape = OpenAIChat
	} else if dl, err = getObject(ch, "message"); err != nil {
		return ans, reas, err
	}
	if dl == nil {
		return ans, reas, nil
	}
	if ans, err = appendText(ans, dl, "content"); err != nil {
		return ans, reas, err
	}
	if ans, err = appendText(ans, dl, "refusal"); err != nil {
		return ans, reas, err
	}
	if reas, err = appendText(reas, dl, "reasoning_content"); err != nil {
		return ans, reas, err
	}
	if reas, err = appendText(reas, dl, "reasoning"); err != nil {
		return ans, reas, err
	}
	calls, err := getArray(dl, "tool_calls")
	if err != nil {
		return ans, reas, err
	}
	if len(calls) > 0 {
		choice, _, err := getInt(ch, "index")
		if err != nil {
			return ans, reas, err
		}
		if err := o.toolCalls(calls, choice, d); err != nil {
			return ans, reas, err
		}
	}
	return ans, reas, nil
}

// openAIUsage decodes the "usage" object of a chunk, when it has one.
func openAIUsage(v *fastjson.Value, d *delta) error {
	u, err := getObject(v, "usage")
	if err != nil || u == nil {
		return err
	}
	if d.output, d.hasOutput, err = getInt(u, "completion_tokens"); err != nil {
		return err
	}
	if d.input, d.hasInput, err = getInt(u, "prompt_tokens"); err != nil {
		return err
	}
	if det, err := getObject(u, "completion_tokens_details"); err != nil {
		return err
	} else if det != nil {
		if d.reasoningTok, d.hasReasoningTok, err = getInt(det, "reasoning_tokens"); err != nil {
			return err
		}
	}
	return nil
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
		if fn != nil {
			name, err := getString(fn, "name")
			if err != nil {
				return err
			}
			args := fn.Get("arguments")
			hasArgs := false
			switch {
			case isNull(args):
			case args.Type() == fastjson.TypeString:
				b, _ := args.StringBytes()
				hasArgs = len(b) > 0
			case args.Type() == fastjson.TypeObject:
				o, _ := args.Object()
				hasArgs = o.Len() > 0
			default:
				hasArgs = true
			}
			if len(name) > 0 || hasArgs {
				d.toolText = true
			}
		}
		d.newTools += o.noteTool(choice, idx, string(id))
	}
	return nil
}

// noteTool records a tool-call fragment and returns 1 when it begins a new
// call: a (choice, index) pair not seen before, or a new id for a known pair.
func (o *openAIDecoder) noteTool(choice, index int, id string) int {
	for i := range o.tools {
		t := &o.tools[i]
		if t.choice == choice && t.index == index {
			if id == "" || id == t.id || t.id == "" {
				if t.id == "" {
					t.id = id
				}
				return 0
			}
			t.id = id
			return 1
		}
	}
	o.tools = append(o.tools, toolKey{choice, index, id})
	return 1
}
