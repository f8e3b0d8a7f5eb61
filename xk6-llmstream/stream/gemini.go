package stream

import (
	"fmt"

	"github.com/valyala/fastjson"
)

// geminiDecoder decodes Gemini's streamGenerateContent?alt=sse chunks (Gemini
// API and Vertex AI), each a whole GenerateContentResponse:
//   - candidates[].content.parts[]: "text" is answer text, or reasoning when
//     the part has "thought": true; a "functionCall" part is a tool call (a
//     name begins one; Vertex AI's streamed partialArgs continue it while
//     willContinue is true); thoughtSignature alone carries no text;
//   - candidates[].finishReason (and promptFeedback.blockReason) is the
//     finish reason and a normal end: the stream has no end marker;
//   - usageMetadata is cumulative: output tokens are candidatesTokenCount +
//     thoughtsTokenCount (thinking is output, as in OpenAI's
//     completion_tokens), so the builder turns them into per-event counts;
//   - {"error": {"code", "message", "status"}} is a stream error.
type geminiDecoder struct {
	p         fastjson.Parser
	ans, reas []byte
	openCall  bool // a streamed functionCall said willContinue
	calls     int  // functionCall parts that began a call
}

func (g *geminiDecoder) decode(ev *Event, d *delta) error {
	v, err := parseEventObject(&g.p, ev, d)
	if v == nil {
		return err
	}
	d.shape = Gemini
	if e := v.Get("error"); !isNull(e) {
		d.isStreamErr, d.streamErr = true, geminiError(e)
		return nil
	}
	if d.model, err = getString(v, "modelVersion"); err != nil {
		return err
	}
	cands, err := getArray(v, "candidates")
	if err != nil {
		return err
	}
	if cands == nil {
		if err := notOpenAI(v, Gemini); err != nil {
			return err
		}
	}
	ans, reas := g.ans[:0], g.reas[:0]
	for i, c := range cands {
		if c.Type() != fastjson.TypeObject {
			return fmt.Errorf("candidates[%d] is a JSON %s, want an object", i, c.Type())
		}
		if ans, reas, err = g.candidate(c, ans, reas, d); err != nil {
			return err
		}
	}
	g.ans, g.reas = ans, reas
	d.answer, d.reasoning = ans, reas
	if pf, err := getObject(v, "promptFeedback"); err != nil {
		return err
	} else if pf != nil {
		if br, err := getString(pf, "blockReason"); err != nil {
			return err
		} else if len(br) > 0 {
			d.finish, d.end = string(br), true
		}
	}
	return geminiUsage(v, d)
}

// candidate decodes one candidate's parts and finish reason.
func (g *geminiDecoder) candidate(c *fastjson.Value, ans, reas []byte, d *delta) ([]byte, []byte, error) {
	fin, err := getString(c, "finishReason")
	if err != nil {
		return ans, reas, err
	}
	if len(fin) > 0 && string(fin) != "FINISH_REASON_UNSPECIFIED" {
		d.finish, d.end = string(fin), true
	}
	content, err := getObject(c, "content")
	if err != nil || content == nil {
		return ans, reas, err
	}
	parts, err := getArray(content, "parts")
	if err != nil {
		return ans, reas, err
	}
	for i, p := range parts {
		if p.Type() != fastjson.TypeObject {
			return ans, reas, fmt.Errorf("parts[%d] is a JSON %s, want an object", i, p.Type())
		}
		if p.GetBool("thought") {
			reas, err = appendText(reas, p, "text")
		} else {
			ans, err = appendText(ans, p, "text")
		}
		if err != nil {
			return ans, reas, err
		}
		fc, err := getObject(p, "functionCall")
		if err != nil {
			return ans, reas, err
		}
		if fc != nil {
			if err := g.functionCall(fc, d); err != nil {
				return ans, reas, err
			}
		}
	}
	return ans, reas, nil
}

// functionCall notes a functionCall part: a whole call, or a piece of one
// whose arguments stream as partialArgs.
func (g *geminiDecoder) functionCall(fc *fastjson.Value, d *delta) error {
	name, err := getString(fc, "name")
	if err != nil {
		return err
	}
	partial, err := getArray(fc, "partialArgs")
	if err != nil {
		return err
	}
	args := hasArguments(fc.Get("args")) || len(partial) > 0
	if len(name) > 0 || (!g.openCall && args) {
		d.newTools++
		g.calls++
	}
	// A call comes whole (args); a streamed one's pieces (partialArgs) are
	// not JSON text, so only its name and id are kept.
	d.addTool(g.calls, fc.GetStringBytes("id"), name, argsBytes(fc.Get("args"), nil), true)
	d.tools[len(d.tools)-1].argsSeen = len(partial) > 0
	if len(name) > 0 || args {
		d.toolText = true
	}
	g.openCall = fc.GetBool("willContinue")
	return nil
}

// geminiUsage reads the cumulative usageMetadata.
func geminiUsage(v *fastjson.Value, d *delta) error {
	u, err := getObject(v, "usageMetadata")
	if err != nil || u == nil {
		return err
	}
	cand, hasCand, err := getInt(u, "candidatesTokenCount")
	if err != nil {
		return err
	}
	thoughts, hasThoughts, err := getInt(u, "thoughtsTokenCount")
	if err != nil {
		return err
	}
	if hasCand || hasThoughts {
		d.output, d.hasOutput = cand+thoughts, true
	}
	if hasThoughts {
		d.reasoningTok, d.hasReasoningTok = thoughts, true
	}
	if d.input, d.hasInput, err = getInt(u, "promptTokenCount"); err != nil {
		return err
	}
	d.cached, _, err = getInt(u, "cachedContentTokenCount")
	return err
}

// geminiError words a Google API error object: "STATUS (code): message".
func geminiError(e *fastjson.Value) string {
	if e.Type() != fastjson.TypeObject {
		return valueErrorMessage(e)
	}
	msg := string(e.GetStringBytes("message"))
	status := string(e.GetStringBytes("status"))
	if c := e.Get("code"); c != nil && c.Type() == fastjson.TypeNumber {
		if status == "" {
			status = "code " + c.String()
		} else {
			status += " (" + c.String() + ")"
		}
	}
	switch {
	case status != "" && msg != "":
		return status + ": " + msg
	case msg != "":
		return msg
	case status != "":
		return status
	}
	return e.String()
}
