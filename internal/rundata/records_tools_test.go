package rundata

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// TestRecordsToolCallSamples: a records file's tool calls give the samples
// metrics.FromRecord makes (llm_tool_calls, llm_tool_call_first_arg,
// llm_tool_call_parse_failures), the failures grouped by their reason tag
// on top of the request's own tags.
func TestRecordsToolCallSamples(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := records.NewWriter(&buf, false, records.Options{})
	ns := func(v int64) *int64 { return &v }
	for i := range 3 {
		rec := records.Record{V: records.Version, ID: "t-" + string(rune('a'+i)), StartNS: 1e18, E2ENS: 2e7, TTFTNS: ns(1e6),
			TextNS: []int64{1e6}, OutputTokens: 1, TokenSource: "usage", Model: "m", API: "openai-chat", Status: 200,
			Tools: []records.ToolCall{{Name: "f", FirstArgNS: ns(int64(2e6 * (i + 1)))}}}
		if i > 0 {
			rec.Tools = append(rec.Tools, records.ToolCall{Name: "g", FirstArgNS: ns(9e6), ParseError: []string{"", "invalid_json", "not_object"}[i]})
		}
		w.Submit(&testItem{rec})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tools.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewReader(Selection{By: []string{"reason", "api"}, MissingOK: true}, []Input{{Path: path, Label: "tools"}}, Options{})
	d, err := Collect(r, CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	calls := d.Series("llm_tool_calls")
	if len(calls) != 1 || calls[0].Counter.Sum != 5 || calls[0].Counter.N != 3 {
		t.Fatalf("llm_tool_calls %+v", calls)
	}
	first := d.Series("llm_tool_call_first_arg")
	if len(first) != 1 || first[0].Trend.Count() != 3 {
		t.Fatalf("llm_tool_call_first_arg %+v", first)
	}
	if got := first[0].Trend.Sorted(); got[0] != 2 || got[2] != 6 {
		t.Errorf("first argument times %v, want 2, 4, 6 ms", got)
	}
	fails := map[string]float64{}
	for _, s := range d.Series("llm_tool_call_parse_failures") {
		fails[s.Group.Key] = s.Counter.Sum
	}
	if len(fails) != 2 || fails["reason=invalid_json,api=openai-chat"] != 1 || fails["reason=not_object,api=openai-chat"] != 1 {
		t.Errorf("parse failures by group %v", fails)
	}
}
