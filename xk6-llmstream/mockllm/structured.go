package mockllm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
)

// outputFormat is the structured output a request asks for: JSON, and, when
// Schema is set, JSON valid against that JSON schema.
type outputFormat struct {
	Schema map[string]any
}

// The reasons an answer of the mock is not what the format asked for
// (RequestLog.OutputInvalid); the helper's reasons for llm_output_invalid use
// the same words.
const (
	invalidNotJSON = "not_json"
	invalidSchema  = "schema"
)

// newFormat is the format of a request that asks for JSON, with the schema
// raw (absent or null: none). what names the field in errors.
func newFormat(what string, raw json.RawMessage) (*outputFormat, error) {
	raw = bytes.TrimSpace(raw)
	f := &outputFormat{}
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return f, nil
	}
	if err := json.Unmarshal(raw, &f.Schema); err != nil {
		return nil, fmt.Errorf("%s: want a JSON schema object: %v", what, err)
	}
	return f, nil
}

// chatFormat reads the format of an OpenAI chat, Cohere v2 or Anthropic
// request: response_format {type: json_object} or {type: json_schema,
// json_schema: {schema}} (OpenAI), {type: json_object, json_schema: schema}
// (Cohere v2), output_config.format or output_format {type: json_schema,
// schema} (Anthropic).
func chatFormat(d dialect, w *wireRequest) (*outputFormat, error) {
	if d == anthropicMessages {
		raw, what := w.OutputFormat, "output_format"
		if w.OutputConfig != nil && len(w.OutputConfig.Format) > 0 {
			raw, what = w.OutputConfig.Format, "output_config.format"
		}
		return typedFormat(what, raw)
	}
	if len(w.ResponseFormat) == 0 {
		return nil, nil
	}
	var rf struct {
		Type       string          `json:"type"`
		JSONSchema json.RawMessage `json:"json_schema"`
	}
	if err := json.Unmarshal(w.ResponseFormat, &rf); err != nil {
		return nil, fmt.Errorf("response_format: %v", err)
	}
	switch rf.Type {
	case "json_object":
		return newFormat("response_format.json_schema", rf.JSONSchema) // Cohere's schema, if any
	case "json_schema":
		var js struct {
			Schema json.RawMessage `json:"schema"`
		}
		if err := json.Unmarshal(rf.JSONSchema, &js); err != nil {
			return nil, fmt.Errorf("response_format.json_schema: %v", err)
		}
		return newFormat("response_format.json_schema.schema", js.Schema)
	}
	return nil, nil // "text" or another kind: plain text
}

// typedFormat reads {type: json_schema, schema} (Anthropic, OpenAI
// Responses' text.format) or {type: json_object} (Responses).
func typedFormat(what string, raw json.RawMessage) (*outputFormat, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	var f struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	switch f.Type {
	case "json_object":
		return &outputFormat{}, nil
	case "json_schema":
		return newFormat(what+".schema", f.Schema)
	}
	return nil, nil
}

// ollamaFormat reads ollama's format: "json" or a JSON schema.
func ollamaFormat(raw json.RawMessage) (*outputFormat, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")) || bytes.Equal(raw, []byte(`""`)):
		return nil, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || s != "json" {
			return nil, fmt.Errorf(`format: want "json" or a JSON schema object, got %s`, raw)
		}
		return &outputFormat{}, nil
	}
	return newFormat("format", raw)
}

// jsonAnswer is the answer of a request with a format, as tokens (one JSON
// lexical token each, joined by spaces) and what is wrong with it on
// purpose ("" when valid). With probability rate the answer is invalid:
// half the time (always without a schema, or with one the mock cannot
// violate) it is cut before its last token (not_json), else one value has
// the wrong type (schema).
func (f *outputFormat) jsonAnswer(r *rand.Rand, rate float64) (toks []string, invalid string) {
	g := &jsonGen{r: r}
	schema := f.Schema
	if schema == nil {
		schema = map[string]any{"type": "object", "properties": map[string]any{
			"answer": map[string]any{"type": "string"}, "score": map[string]any{"type": "integer"}}}
	}
	bad := rate > 0 && r.Float64() < rate
	if bad && f.Schema != nil && r.IntN(2) == 0 {
		g.value(schema, 0, true)
		if g.violated {
			return g.toks, invalidSchema
		}
		g = &jsonGen{r: r}
	}
	g.value(schema, 0, false)
	if bad {
		return g.toks[:len(g.toks)-1], invalidNotJSON
	}
	return g.toks, ""
}

// jsonGen writes a JSON value for a schema (type, properties, required,
// items, enum, const, minimum, maximum, minItems, maxItems, anyOf/oneOf: the
// first); with violate, the first value it can give a wrong type gets one.
type jsonGen struct {
	r        *rand.Rand
	toks     []string
	violated bool
}

var jsonWords = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}

func (g *jsonGen) emit(v any) {
	b, _ := json.Marshal(v)
	g.toks = append(g.toks, string(b))
}

func (g *jsonGen) value(s map[string]any, depth int, violate bool) {
	if c, ok := s["const"]; ok {
		g.emit(c)
		return
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		g.emit(e[g.r.IntN(len(e))])
		return
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if a, ok := alts[0].(map[string]any); ok {
				g.value(a, depth, violate)
				return
			}
		}
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	if typ == "" {
		if _, ok := s["properties"]; ok {
			typ = "object"
		}
	}
	if violate && !g.violated && typ != "object" && typ != "array" && typ != "" {
		g.violated = true
		if typ == "string" {
			g.emit(12345)
		} else {
			g.emit("wrong type")
		}
		return
	}
	switch typ {
	case "object":
		g.object(s, depth, violate)
	case "array":
		g.array(s, depth, violate)
	case "string":
		g.emit(jsonWords[g.r.IntN(len(jsonWords))])
	case "integer":
		lo, hi := bounds(s, 0, 100)
		g.emit(int64(lo) + g.r.Int64N(int64(hi-lo)+1))
	case "number":
		lo, hi := bounds(s, 0, 100)
		v := lo + g.r.Float64()*(hi-lo)
		g.toks = append(g.toks, strconv.FormatFloat(v, 'f', 2, 64))
	case "boolean":
		g.emit(g.r.IntN(2) == 0)
	case "null":
		g.emit(nil)
	default:
		g.emit(jsonWords[g.r.IntN(len(jsonWords))])
	}
}

// bounds are a number schema's minimum and maximum (lo, hi when absent).
func bounds(s map[string]any, lo, hi float64) (float64, float64) {
	if v, ok := s["minimum"].(float64); ok {
		lo = v
		if _, ok := s["maximum"]; !ok {
			hi = lo + 100
		}
	}
	if v, ok := s["maximum"].(float64); ok {
		hi = v
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func (g *jsonGen) object(s map[string]any, depth int, violate bool) {
	props, _ := s["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	g.toks = append(g.toks, "{")
	for i, k := range keys {
		if i > 0 {
			g.toks[len(g.toks)-1] += ","
		}
		kb, _ := json.Marshal(k)
		g.toks = append(g.toks, string(kb)+":")
		ps, _ := props[k].(map[string]any)
		if ps == nil || depth > 8 {
			ps = map[string]any{"type": "string"}
		}
		g.value(ps, depth+1, violate)
	}
	g.toks = append(g.toks, "}")
}

func (g *jsonGen) array(s map[string]any, depth int, violate bool) {
	items, _ := s["items"].(map[string]any)
	if items == nil || depth > 8 {
		items = map[string]any{"type": "string"}
	}
	lo, hi := 1, 3
	if v, ok := s["minItems"].(float64); ok {
		lo = int(v)
		hi = max(hi, lo)
	}
	if v, ok := s["maxItems"].(float64); ok {
		hi = max(int(v), lo)
		lo = min(lo, hi)
	}
	n := lo + g.r.IntN(hi-lo+1)
	g.toks = append(g.toks, "[")
	for i := range n {
		if i > 0 {
			g.toks[len(g.toks)-1] += ","
		}
		g.value(items, depth+1, violate)
	}
	g.toks = append(g.toks, "]")
}
