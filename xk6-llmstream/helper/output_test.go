package helper

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0,"maximum":120}},"required":["name","age"],"additionalProperties":false}`

// syncBuffer is a Config.Log the test reads after the mock closed.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) logs(t *testing.T) []mockllm.RequestLog {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []mockllm.RequestLog
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l mockllm.RequestLog
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// structuredBody is a request of api asking for personSchema in the
// dialect's own field (the shapes llmstream.js builds; docs/module.md).
func structuredBody(api string) (path string, body map[string]any) {
	var schema map[string]any
	_ = json.Unmarshal([]byte(personSchema), &schema)
	msgs := []any{map[string]any{"role": "user", "content": "a person"}}
	switch api {
	case "openai-responses":
		return "/v1/responses", map[string]any{"model": "m", "input": msgs,
			"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "person", "schema": schema, "strict": true}}}
	case "anthropic-messages":
		return "/v1/messages", map[string]any{"model": "m", "max_tokens": 100, "messages": msgs,
			"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": schema}}}
	case "gemini":
		gs := map[string]any{"type": "OBJECT", "properties": map[string]any{
			"name": map[string]any{"type": "STRING"}, "age": map[string]any{"type": "INTEGER", "minimum": 0, "maximum": 120}},
			"required": []any{"name", "age"}}
		return "/v1beta/models/m:streamGenerateContent?alt=sse", map[string]any{
			"contents":         []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "a person"}}}},
			"generationConfig": map[string]any{"responseMimeType": "application/json", "responseSchema": gs}}
	case "cohere":
		return "/v2/chat", map[string]any{"model": "m", "messages": msgs,
			"response_format": map[string]any{"type": "json_object", "json_schema": schema}}
	case "ollama":
		return "/api/chat", map[string]any{"model": "m", "messages": msgs, "format": schema}
	}
	return "/v1/chat/completions", map[string]any{"model": "m", "messages": msgs,
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "person", "schema": schema, "strict": true}}}
}

// invalidSample is the answer's llm_output_invalid value and reason tag.
func invalidSample(a Answer) (v float64, reason string, ok bool) {
	for _, s := range a.Samples {
		if s.Metric == metrics.OutputInvalid && len(s.Values) == 1 {
			return s.Values[0], s.Tags[metrics.TagReason], true
		}
	}
	return 0, "", false
}

// In every dialect the helper's verdict on each structured answer is the
// mock's ground truth: valid answers 0, those the mock cut short 1 with
// reason not_json, those with a wrong-typed value 1 with reason schema.
func TestOutputCheckMatchesTheMocksTruth(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai-chat", "openai-responses", "anthropic-messages", "gemini", "cohere", "ollama"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			log := &syncBuffer{}
			m, err := mockllm.New(mockllm.Config{Seed: 5, Log: log, Default: mockllm.ModelConfig{InvalidJSON: 0.5}})
			if err != nil {
				t.Fatal(err)
			}
			mock := startMockServer(t, m)
			h := startHelper(t)
			path, body := structuredBody(api)
			const n = 24
			got := make([]string, n)
			for i := range n {
				code, a, raw := streamVia(t, h.URL(), map[string]any{"url": mock + path, "api": api, "body": body})
				if code != 200 || !a.OK {
					t.Fatalf("request %d: %d %s", i, code, raw)
				}
				v, reason, ok := invalidSample(a)
				if !ok || (v == 1) != (reason != "") {
					t.Fatalf("request %d: llm_output_invalid %v reason %q present %v\n%s", i, v, reason, ok, raw)
				}
				got[i] = reason
				if a.Text != nil {
					t.Errorf("the check returned the text though keep_text was not asked")
				}
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			for i, l := range log.logs(t) {
				want := l.OutputInvalid
				if want == "valid" {
					want = ""
				}
				kinds[want]++
				if got[i] != want {
					t.Errorf("request %d: helper says %q, the mock made it %q", i, got[i], l.OutputInvalid)
				}
			}
			if kinds[""] == 0 || kinds[InvalidNotJSON] == 0 || kinds[InvalidSchema] == 0 {
				t.Errorf("the run did not cover every outcome: %v", kinds)
			}
		})
	}
}

// A request without a format has no llm_output_invalid sample; JSON mode
// without a schema checks parsing only.
func TestOutputCheckOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	mock := startMock(t, mockllm.Config{Seed: 2})
	h := startHelper(t)
	msgs := []any{map[string]any{"role": "user", "content": "x"}}
	_, a, raw := streamVia(t, h.URL(), map[string]any{"url": mock + "/v1/chat/completions", "api": "openai-chat",
		"body": map[string]any{"model": "m", "max_tokens": 5, "messages": msgs}})
	if _, _, ok := invalidSample(a); ok {
		t.Errorf("a sample without a format: %s", raw)
	}
	_, a, raw = streamVia(t, h.URL(), map[string]any{"url": mock + "/v1/chat/completions", "api": "openai-chat",
		"body": map[string]any{"model": "m", "messages": msgs, "response_format": map[string]any{"type": "json_object"}}})
	if v, _, ok := invalidSample(a); !ok || v != 0 {
		t.Errorf("json_object: llm_output_invalid %v (present %v): %s", v, ok, raw)
	}
	// max_tokens cuts the document: not JSON.
	_, a, raw = streamVia(t, h.URL(), map[string]any{"url": mock + "/v1/chat/completions", "api": "openai-chat",
		"body": map[string]any{"model": "m", "max_tokens": 2, "messages": msgs, "response_format": map[string]any{"type": "json_object"}}})
	if v, reason, _ := invalidSample(a); v != 1 || reason != InvalidNotJSON {
		t.Errorf("cut by max_tokens: llm_output_invalid %v reason %q: %s", v, reason, raw)
	}
}

// A schema that does not compile, or refers outside itself, is refused
// before anything is sent, naming the field.
func TestOutputCheckRefusesBadSchemas(t *testing.T) {
	t.Parallel()
	h := startHelper(t)
	for _, tt := range []struct {
		format map[string]any
		want   string
	}{
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "schema": map[string]any{"type": 12}}}, "response_format.json_schema.schema"},
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "schema": map[string]any{"$ref": "http://127.0.0.1:1/s.json"}}}, "does not load"},
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x"}}, "response_format.json_schema"},
	} {
		code, _, raw := streamVia(t, h.URL(), map[string]any{"url": "http://127.0.0.1:1/v1/chat/completions", "api": "openai-chat",
			"body": map[string]any{"model": "m", "messages": []any{}, "response_format": tt.format}})
		if code != 400 || !strings.Contains(raw, tt.want) {
			t.Errorf("%v: %d %s; want 400 naming %q", tt.format, code, raw, tt.want)
		}
	}
}

// startMockServer serves m on loopback until the test ends.
func startMockServer(t *testing.T, m *mockllm.Server) string {
	t.Helper()
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return srv.URL
}

// The quick skip of bodies without a format key misses no spelling of one.
func TestOutputCheckFindsEscapedKeys(t *testing.T) {
	for _, body := range []string{
		`{"response_format":{"type":"json_object"}}`,
		`{"response_form\u0061t":{"type":"json_object"}}`,
		`{"text":{"format":{"type":"json_object"}}}`,
		`{"generationConfig":{"responseMimeType":"application/json"}}`,
		`{"format":"json"}`,
	} {
		c, rerr := newOutputCheck([]byte(body))
		if rerr != nil || c == nil {
			t.Errorf("%s: check %v, refusal %v; want a check", body, c, rerr)
		}
	}
	for _, body := range []string{`{"messages":[]}`, `{"format":""}`, `{"response_format":{"type":"text"}}`} {
		if c, rerr := newOutputCheck([]byte(body)); c != nil || rerr != nil {
			t.Errorf("%s: check %v, refusal %v; want none", body, c, rerr)
		}
	}
}
