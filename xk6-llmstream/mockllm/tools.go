package mockllm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Tool calls. When a request offers tools (each dialect's own "tools" field)
// and its conversation holds fewer tool results than the model's ToolRounds
// (default 1), the answer is one tool call instead of text: the tool is drawn
// from the offered ones with the request's seeded source, and its arguments
// are a JSON object with one member per property of the tool's JSON schema
// (in name order), valued by the property's type (an enum's drawn member, a
// drawn word, integer, number or boolean; [] and {} for arrays and objects).
// The arguments stream in toolPieceBytes pieces, one per token event, as
// each API streams them (OpenAI chat tool_calls deltas, Responses
// function_call_arguments.delta, Anthropic input_json_delta, Cohere
// tool-call-delta); Gemini and ollama send a call whole, in one event. Each
// piece is one output token. max_tokens does not cut a tool call. Once the
// conversation holds ToolRounds tool results the model answers with text, so
// an agent loop ends. Non-streamed answers are text (no tool call).

// maxToolRounds bounds ModelConfig.ToolRounds.
const maxToolRounds = 100

// toolPieceBytes is the size of one streamed piece of the arguments (cut at
// a rune boundary).
const toolPieceBytes = 8

// toolSpec is one offered tool: its name and JSON schema of parameters.
type toolSpec struct {
	Name   string
	Params json.RawMessage
}

// toolCall is the tool call an answer makes.
type toolCall struct {
	name   string
	id     string
	args   string
	pieces []int // end offsets in args of each piece
}

// piece returns the arguments text of pieces [from, from+n).
func (t *toolCall) piece(from, n int) string {
	start := 0
	if from > 0 {
		start = t.pieces[from-1]
	}
	return t.args[start:t.pieces[from+n-1]]
}

// wholeToolCall reports whether dialect d sends a tool call whole, in one
// event (Gemini, ollama).
func wholeToolCall(d dialect) bool { return d == gemini || d == ollama }

// toolFinish is the dialect's finish reason of an answer that calls a tool.
func toolFinish(d dialect) string {
	switch d {
	case openAIChat:
		return "tool_calls"
	case anthropicMessages:
		return "tool_use"
	case cohere:
		return "TOOL_CALL"
	case gemini:
		return "STOP"
	case ollama:
		return "stop"
	}
	return "completed"
}

// finishWord is the finish reason the answer ends with.
func (g *gen) finishWord() string {
	if g.tool != nil {
		return toolFinish(g.d)
	}
	return g.enc.finishReason(g.length)
}

// parseTools reads a request's tools: OpenAI chat, ollama and Cohere
// ({"type":"function","function":{"name","parameters"}}), Responses
// ({"type":"function","name","parameters"}), Anthropic ({"name",
// "input_schema"}) and Gemini ({"functionDeclarations":[{"name",
// "parametersJsonSchema" or "parameters"}]}: the API documents both, a JSON
// schema and its own Schema type).
func parseTools(raw []json.RawMessage) ([]toolSpec, error) {
	var out []toolSpec
	for i, r := range raw {
		var t struct {
			Name        string          `json:"name"`
			Parameters  json.RawMessage `json:"parameters"`
			InputSchema json.RawMessage `json:"input_schema"`
			Function    *struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
			FunctionDeclarations []struct {
				Name           string          `json:"name"`
				Parameters     json.RawMessage `json:"parameters"`
				ParametersJSON json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		}
		if err := json.Unmarshal(r, &t); err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		switch {
		case t.Function != nil:
			out = append(out, toolSpec{t.Function.Name, t.Function.Parameters})
		case len(t.FunctionDeclarations) > 0:
			for _, f := range t.FunctionDeclarations {
				p := f.ParametersJSON
				if len(p) == 0 {
					p = f.Parameters
				}
				out = append(out, toolSpec{f.Name, p})
			}
			continue
		case len(t.InputSchema) > 0:
			out = append(out, toolSpec{t.Name, t.InputSchema})
		default:
			out = append(out, toolSpec{t.Name, t.Parameters})
		}
		if out[len(out)-1].Name == "" {
			return nil, fmt.Errorf("tools[%d]: the tool has no name", i)
		}
	}
	return out, nil
}

// addTools reads the tools offered and counts the tool results of a
// chat-shaped conversation: messages of role "tool" (OpenAI chat, Cohere,
// ollama) and tool_result blocks (Anthropic).
func addTools(req *genRequest, raw []json.RawMessage, msgs []wireMessage) error {
	tools, err := parseTools(raw)
	if err != nil {
		return err
	}
	req.Tools = tools
	for _, m := range msgs {
		if m.Role == "tool" {
			req.ToolResults++
			continue
		}
		req.ToolResults += countToolResults(m.Content)
	}
	return nil
}

// countToolResults counts the tool results in a message's content blocks
// (Anthropic tool_result, Gemini functionResponse parts).
func countToolResults(content json.RawMessage) int {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || content[0] != '[' {
		return 0
	}
	var parts []struct {
		Type             string          `json:"type"`
		FunctionResponse json.RawMessage `json:"functionResponse"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return 0
	}
	n := 0
	for _, p := range parts {
		if p.Type == "tool_result" || len(p.FunctionResponse) > 0 {
			n++
		}
	}
	return n
}

// toolWords are the words string arguments are drawn from (ASCII, so that
// pieces never split a character).
var toolWords = []string{"paris", "berlin", "tokyo", "lima", "oslo", "cairo", "quito", "seoul"}

// planTool draws the tool call of an answer to req, or nil when the answer
// is text.
func (g *gen) planTool(req *genRequest) *toolCall {
	rounds := max(g.mc.ToolRounds, 1)
	if len(req.Tools) == 0 || req.ToolResults >= rounds || g.d == openAICompletions {
		return nil
	}
	r := requestRand(g.s.cfg.Seed, g.seq, purposeTool)
	spec := req.Tools[r.IntN(len(req.Tools))]
	t := &toolCall{name: spec.Name, args: toolArguments(spec.Params, r)}
	seq := strconv.FormatUint(g.seq, 10)
	switch g.d {
	case anthropicMessages:
		t.id = "toolu_mock_" + seq
	case gemini, ollama:
		// These APIs give a call no id.
	default:
		t.id = "call_mock_" + seq
	}
	if wholeToolCall(g.d) {
		t.pieces = []int{len(t.args)}
		return t
	}
	for at := 0; at < len(t.args); {
		end := min(at+toolPieceBytes, len(t.args))
		for end < len(t.args) && !utf8.RuneStart(t.args[end]) {
			end++
		}
		t.pieces = append(t.pieces, end)
		at = end
	}
	return t
}

// toolArguments makes the arguments of a call from the tool's JSON schema:
// one member per property, in name order.
func toolArguments(schema json.RawMessage, r *rand.Rand) string {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
			Enum []any           `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s) // a schema we cannot read gives {}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	b := []byte{'{'}
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONValue(b, k)
		b = append(b, ':')
		p := s.Properties[k]
		if len(p.Enum) > 0 {
			b = appendJSONValue(b, p.Enum[r.IntN(len(p.Enum))])
			continue
		}
		var typ string
		if json.Unmarshal(p.Type, &typ) != nil {
			var types []string // ["string", "null"]
			if json.Unmarshal(p.Type, &types) == nil && len(types) > 0 {
				typ = types[0]
			}
		}
		switch typ {
		case "integer":
			b = strconv.AppendInt(b, int64(r.IntN(100)), 10)
		case "number":
			b = strconv.AppendFloat(b, float64(r.IntN(1000))/10, 'f', -1, 64)
		case "boolean":
			b = strconv.AppendBool(b, r.IntN(2) == 1)
		case "array":
			b = append(b, "[]"...)
		case "object":
			b = append(b, "{}"...)
		default:
			b = appendJSONValue(b, toolWords[r.IntN(len(toolWords))])
		}
	}
	return string(append(b, '}'))
}

func appendJSONValue(b []byte, v any) []byte {
	q, err := json.Marshal(v)
	if err != nil { // a value decoded from JSON always marshals
		panic(err)
	}
	return append(b, q...)
}

// toolEncoder is what a dialect writes of a tool call: toolToken writes
// pieces [from, from+n) of the arguments (beginning the call before the
// first piece); the encoder's finish closes it.
type toolEncoder interface {
	toolToken(g *gen, from, n int)
}
