package helper

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// TestToolCallsInAnswerNotInRecords: the answer lists the tool calls with
// their arguments (redacted: a model may echo a key) and the time of their
// first argument piece; the records file keeps the call without its
// arguments (records keep no generated text).
func TestToolCallsInAnswerNotInRecords(t *testing.T) {
	t.Parallel()
	fs := &fakeStreamer{rec: &stream.Record{
		Status: 200, Start: time.Now(), Model: "m", E2E: 9 * time.Millisecond, HasTTFT: true, TTFT: 2 * time.Millisecond,
		ToolCalls: 2, Tools: []stream.ToolCall{
			{ID: "c1", Name: "lookup", Arguments: `{"key":"` + testKey + `"}`, FirstArg: 3 * time.Millisecond, HasFirstArg: true},
			{ID: "c2", Name: "cut", Arguments: `{"a":`, FirstArg: 5 * time.Millisecond, HasFirstArg: true, ParseError: stream.ToolArgsInvalidJSON},
		},
	}}
	var recs bytes.Buffer
	rw := records.NewWriter(&recs, false, records.Options{})
	h := NewHandler(WithStreamer(fs), WithRecords(rw))
	r := httptest.NewRequest(http.MethodPost, StreamPath, strings.NewReader(`{"url":"http://127.0.0.1:9/v1/chat/completions","body":{},
		"headers":{"Authorization":"Bearer `+testKey+`"}}`))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	h.Wait()
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	var a Answer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.Body.String(), testKey) {
		t.Errorf("the answer leaks the key: %s", w.Body.String())
	}
	if len(a.Tools) != 2 || a.Tools[0].Name != "lookup" || a.Tools[0].Arguments != `{"key":"`+Redacted+`"}` ||
		a.Tools[0].FirstArgMS == nil || *a.Tools[0].FirstArgMS != 3 || a.Tools[1].ParseError != "invalid_json" || a.Tools[1].Arguments != `{"a":` {
		t.Errorf("answer tools %+v", a.Tools)
	}
	if v, ok := a.Value("llm_tool_calls"); !ok || v != 2 {
		t.Errorf("llm_tool_calls %v %v", v, ok)
	}
	out := recs.String()
	if strings.Contains(out, `"arguments"`) || strings.Contains(out, testKey) || !strings.Contains(out, `"tools":[{"id":"c1","name":"lookup","first_arg_ns":3000000}`) {
		t.Errorf("records: %s", out)
	}
}
