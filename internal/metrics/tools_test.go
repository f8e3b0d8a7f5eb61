package metrics

import (
	"reflect"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// TestFromRecordToolCalls: a request with tool calls gets llm_tool_calls,
// llm_tool_call_first_arg (the first call that had arguments) and one
// llm_tool_call_parse_failures series per reason; one without gets none.
func TestFromRecordToolCalls(t *testing.T) {
	ns := func(v int64) *int64 { return &v }
	rec := &records.Record{StartNS: 1, E2ENS: 9e6, Tools: []records.ToolCall{
		{Name: "a"},
		{Name: "b", FirstArgNS: ns(2_500_400), ParseError: "invalid_json"},
		{Name: "c", FirstArgNS: ns(3e6), ParseError: "not_object"},
		{Name: "d", FirstArgNS: ns(4e6), ParseError: "invalid_json"},
	}, ToolsDropped: 1}
	got := map[string][]Series{}
	for _, s := range FromRecord(rec, nil) {
		got[s.Metric] = append(got[s.Metric], s)
	}
	if s := got[ToolCalls]; len(s) != 1 || !reflect.DeepEqual(s[0].Values, []float64{5}) {
		t.Errorf("llm_tool_calls %+v, want [5] (4 kept + 1 dropped)", s)
	}
	if s := got[ToolCallFirstArg]; len(s) != 1 || !reflect.DeepEqual(s[0].Values, []float64{2.5}) {
		t.Errorf("llm_tool_call_first_arg %+v, want [2.5]", s)
	}
	want := []Series{
		{Metric: ToolCallParseFailures, Values: []float64{2}, Tags: map[string]string{TagReason: "invalid_json"}},
		{Metric: ToolCallParseFailures, Values: []float64{1}, Tags: map[string]string{TagReason: "not_object"}},
	}
	if !reflect.DeepEqual(got[ToolCallParseFailures], want) {
		t.Errorf("parse failures %+v, want %+v", got[ToolCallParseFailures], want)
	}
	for _, s := range FromRecord(&records.Record{StartNS: 1, E2ENS: 9e6}, nil) {
		if s.Metric == ToolCalls || s.Metric == ToolCallFirstArg || s.Metric == ToolCallParseFailures {
			t.Errorf("a request without tool calls has %s", s.Metric)
		}
	}
}
