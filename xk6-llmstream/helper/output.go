package helper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/gemini"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// The structured-output check: a request whose body asks for JSON output
// has its answer's text checked: it must parse as JSON and, when the body
// gives a JSON schema, validate against it (santhosh-tekuri/jsonschema,
// drafts 4 to 2020-12; a schema's $ref to anything outside itself is refused:
// the helper loads nothing). The result goes into the record
// (records.OutputCheck), from which metrics.FromRecord makes
// llm_output_invalid.
//
// The fields read, whatever the dialect (each is one dialect's own):
//   - response_format: {type: json_object} or {type: json_schema,
//     json_schema: {schema}} (OpenAI chat), {type: json_object, json_schema:
//     schema} (Cohere v2);
//   - text.format: {type: json_object} or {type: json_schema, schema}
//     (OpenAI Responses);
//   - output_config.format, output_format: {type: json_schema, schema}
//     (Anthropic);
//   - generationConfig.responseMimeType application/json with
//     responseJsonSchema, or responseSchema (Gemini's OpenAPI subset; its
//     upper-case type names are read in lower case);
//   - format: "json" or a schema (ollama).

// The reasons of records.OutputCheck.Invalid.
const (
	InvalidNotJSON   = "not_json"
	InvalidSchema    = "schema"
	InvalidToolCalls = "tool_calls"
	InvalidTooLong   = "too_long"
)

// maxCheckBytes bounds the answer text the check parses; a longer one is
// counted invalid (too_long): the check cannot decide, so it fails closed.
const maxCheckBytes = 4 << 20

// outputCheck is one request's check: the schema (compiled, within the
// bounds of schema.go), nil for JSON without a schema.
type outputCheck struct {
	schema *schemaEntry
}

// formatFields are the body fields that ask for structured output.
type formatFields struct {
	ResponseFormat json.RawMessage `json:"response_format"`
	Text           *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
	OutputConfig *struct {
		Format json.RawMessage `json:"format"`
	} `json:"output_config"`
	OutputFormat     json.RawMessage `json:"output_format"`
	GenerationConfig *struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
	Format json.RawMessage `json:"format"`
}

// newOutputCheck reads the body's request for structured output: nil when
// there is none; a refusal naming the field when it is malformed or its
// schema does not compile.
func newOutputCheck(body []byte) (*outputCheck, *requestError) {
	// Most bodies ask for no format: skip the second parse unless a key
	// that may ask for one is there (or a \u escape could spell one).
	if !bytes.Contains(body, []byte(`format"`)) && !bytes.Contains(body, []byte(`responseMimeType"`)) &&
		!bytes.Contains(body, []byte(`\u`)) {
		return nil, nil
	}
	var f formatFields
	if err := json.Unmarshal(body, &f); err != nil {
		return nil, nil // not our business: the upstream says what is wrong
	}
	field, schema, asked, err := f.schema()
	if err != nil {
		return nil, badRequest("%s: %v", field, err)
	}
	if !asked {
		return nil, nil
	}
	if len(schema) == 0 {
		return &outputCheck{}, nil
	}
	sch, err := checkedSchema(schema)
	if err != nil {
		return nil, badRequest("%s: %v", field, err)
	}
	return &outputCheck{schema: sch}, nil
}

// schema finds the field that asks for JSON: its name, its schema (nil:
// JSON without a schema) and whether any does.
func (f *formatFields) schema() (field string, schema json.RawMessage, asked bool, err error) {
	if present(f.ResponseFormat) {
		var rf struct {
			Type       string          `json:"type"`
			JSONSchema json.RawMessage `json:"json_schema"`
		}
		if err := json.Unmarshal(f.ResponseFormat, &rf); err != nil {
			return "response_format", nil, false, errors.New("want an object with a type")
		}
		switch rf.Type {
		case "json_object": // Cohere v2 puts the schema itself in json_schema
			return "response_format.json_schema", nonNull(rf.JSONSchema), true, nil
		case "json_schema":
			var js struct {
				Schema json.RawMessage `json:"schema"`
			}
			if err := json.Unmarshal(rf.JSONSchema, &js); err != nil || !present(js.Schema) {
				return "response_format.json_schema", nil, false, errors.New(`want {"name": ..., "schema": {...}}`)
			}
			return "response_format.json_schema.schema", js.Schema, true, nil
		}
	}
	for _, c := range []struct {
		name string
		raw  json.RawMessage
	}{{"text.format", textFormat(f)}, {"output_config.format", configFormat(f)}, {"output_format", f.OutputFormat}} {
		if !present(c.raw) {
			continue
		}
		var tf struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		}
		if err := json.Unmarshal(c.raw, &tf); err != nil {
			return c.name, nil, false, errors.New("want an object with a type")
		}
		switch tf.Type {
		case "json_object":
			return c.name, nil, true, nil
		case "json_schema":
			if !present(tf.Schema) {
				return c.name + ".schema", nil, false, errors.New("type json_schema needs a schema")
			}
			return c.name + ".schema", tf.Schema, true, nil
		}
	}
	if g := f.GenerationConfig; g != nil && g.ResponseMimeType == "application/json" {
		if present(g.ResponseJSONSchema) {
			return "generationConfig.responseJsonSchema", g.ResponseJSONSchema, true, nil
		}
		if present(g.ResponseSchema) {
			s, err := gemini.JSONSchema(g.ResponseSchema)
			return "generationConfig.responseSchema", s, true, err
		}
		return "generationConfig", nil, true, nil
	}
	if present(f.Format) {
		raw := bytes.TrimSpace(f.Format)
		if raw[0] == '"' {
			if string(raw) == `"json"` {
				return "format", nil, true, nil
			}
			return "format", nil, false, nil // "" or another word: plain text
		}
		return "format", raw, true, nil
	}
	return "", nil, false, nil
}

func textFormat(f *formatFields) json.RawMessage {
	if f.Text == nil {
		return nil
	}
	return f.Text.Format
}

func configFormat(f *formatFields) json.RawMessage {
	if f.OutputConfig == nil {
		return nil
	}
	return f.OutputConfig.Format
}

func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if !present(raw) {
		return nil
	}
	return raw
}

// check checks a successful request's answer into its record. The schema
// validation stops when ctx ends (the client left) or its budget is spent
// (MaxSchemaSteps): the answer is then counted invalid (too_long, not
// checked), failing closed.
func (c *outputCheck) check(ctx context.Context, raw *stream.Record, rec *records.Record) {
	if !rec.OK() {
		return
	}
	oc := &records.OutputCheck{Schema: c.schema != nil}
	rec.OutputCheck = oc
	text := strings.TrimSpace(raw.Text)
	switch {
	case text == "" && raw.ToolCalls > 0:
		oc.Invalid, oc.Detail = InvalidToolCalls, "the answer came as tool calls, not text"
		return
	case len(text) > maxCheckBytes:
		oc.Invalid, oc.Detail = InvalidTooLong, fmt.Sprintf("the text has %d bytes, over the check's limit of %d; not checked", len(text), maxCheckBytes)
		return
	}
	var probe any
	if err := json.Unmarshal([]byte(text), &probe); err != nil {
		oc.Invalid, oc.Detail = InvalidNotJSON, "the text does not parse as JSON: "+err.Error()
		return
	}
	if c.schema == nil {
		return
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil { // parsed above; a number encoding/json took and this did not
		oc.Invalid, oc.Detail = InvalidNotJSON, "the text does not parse as JSON: "+err.Error()
		return
	}
	if err := c.schema.validate(ctx, inst); err != nil {
		var over *notCheckedError
		if errors.As(err, &over) {
			oc.Invalid, oc.Detail = InvalidTooLong, over.Error()
			return
		}
		oc.Invalid, oc.Detail = InvalidSchema, schemaError(err)
	}
}

// schemaError is the validation error's first leaf: where in the answer and
// what the schema wanted (no values of the answer).
func schemaError(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return strings.Join(strings.Fields(ve.Error()), " ")
}
