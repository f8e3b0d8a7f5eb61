package conformance

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// TestGoSDKStructuredOutput: the OpenAI Go SDK sends response_format
// json_schema as its types build it, the mock reads it and streams a JSON
// answer made from the schema, and the text the SDK assembles (deltas and
// the accumulated message alike) parses into the schema's shape.
func TestGoSDKStructuredOutput(t *testing.T) {
	url := startMock(t)
	c := openAIClient(url)
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"name": map[string]any{"type": "string"}, "age": map[string]any{"type": "integer", "minimum": 0, "maximum": 120}},
		"required": []any{"name", "age"}, "additionalProperties": false}
	p := openai.ChatCompletionNewParams{Model: "plain", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "person", Schema: schema, Strict: openai.Bool(true)}}},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	s := c.Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	deltas := ""
	for s.Next() {
		ch := s.Current()
		acc.AddChunk(ch)
		if len(ch.Choices) > 0 {
			deltas += ch.Choices[0].Delta.Content
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) == 0 || acc.Choices[0].Message.Content != deltas {
		t.Fatalf("accumulated %+v, deltas %q", acc.Choices, deltas)
	}
	var v struct {
		Name *string `json:"name"`
		Age  *int    `json:"age"`
	}
	dec := json.NewDecoder(strings.NewReader(deltas))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil || v.Name == nil || v.Age == nil || *v.Age < 0 || *v.Age > 120 {
		t.Errorf("answer %q: %v (%+v)", deltas, err, v)
	}
	if acc.Usage.CompletionTokens == 0 {
		t.Errorf("no usage for the structured answer")
	}
}
