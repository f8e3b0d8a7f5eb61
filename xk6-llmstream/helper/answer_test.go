package helper

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// TestAnswerSamplesJSON: the samples are one object in FromRecord's order,
// a number for one value and an array for several; the series tags go to
// sample_tags, one set per value; reading it back gives FromRecord's series.
func TestAnswerSamplesJSON(t *testing.T) {
	t.Parallel()
	s := AnswerSamples{
		{Metric: metrics.TTFT, Values: []float64{20.512}},
		{Metric: metrics.ITL, Values: []float64{8.1, 7.9, 0}},
		{Metric: metrics.ITLMax, Values: []float64{8.1}},
		{Metric: metrics.OutputTokens, Values: []float64{64}},
		{Metric: metrics.ToolCallParseFailures, Values: []float64{2}, Tags: map[string]string{"reason": "invalid_json"}},
		{Metric: metrics.ToolCallParseFailures, Values: []float64{1}, Tags: map[string]string{"reason": "not_object"}},
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"llm_ttft":20.512,"llm_itl":[8.1,7.9,0],"llm_itl_max":8.1,"llm_output_tokens":64,"llm_tool_call_parse_failures":[2,1]}`
	if string(b) != want {
		t.Errorf("samples JSON\n%s\nwant\n%s", b, want)
	}
	tags, _ := json.Marshal(s.Tags())
	if wantTags := `{"llm_tool_call_parse_failures":[{"reason":"invalid_json"},{"reason":"not_object"}]}`; string(tags) != wantTags {
		t.Errorf("sample_tags %s, want %s", tags, wantTags)
	}
	if (AnswerSamples{{Metric: metrics.TTFT, Values: []float64{1}}}).Tags() != nil {
		t.Error("untagged samples have sample_tags")
	}
	var a Answer
	if err := json.Unmarshal([]byte(`{"version":3,"ok":true,"id":"x","tags":{"model":"m","api":"openai-chat","token_source":"usage"},"samples":`+string(b)+`,"sample_tags":`+string(tags)+`}`), &a); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Samples, s) {
		t.Errorf("read back %+v, want %+v", a.Samples, s)
	}
	if a.Model != "m" || a.API != "openai-chat" || a.TokenSource != "usage" {
		t.Errorf("model, api, token source %q %q %q, want the tags'", a.Model, a.API, a.TokenSource)
	}
	if _, err := json.Marshal(AnswerSamples{{Metric: metrics.TTFT, Values: []float64{1}}, {Metric: metrics.E2E, Values: []float64{inf()}}}); err == nil || !strings.Contains(err.Error(), metrics.E2E) {
		t.Errorf("a non-finite sample: error %v, want one naming %s", err, metrics.E2E)
	}
}

func inf() float64 { z := 0.0; return 1 / z }

// TestAnswerSamplesBadJSON: a samples object or sample_tags a Go reader
// cannot take is an error naming what is wrong.
func TestAnswerSamplesBadJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, want string }{
		{`{"version":3,"ok":true,"samples":[{"metric":"llm_ttft","values":[1]}]}`, "want a JSON object"},
		{`{"version":3,"ok":true,"samples":{"llm_ttft":"1"}}`, "llm_ttft: want a number or an array"},
		{`{"version":3,"ok":true,"samples":{"llm_itl":[1,"x"]}}`, "llm_itl: want a number or an array"},
		{`{"version":3,"ok":true,"samples":{"llm_output_invalid":1},"sample_tags":{"llm_output_invalid":[]}}`, "llm_output_invalid has 0 tag sets for 1 values"},
	} {
		var a Answer
		if err := json.Unmarshal([]byte(tc.body), &a); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.want)
		}
	}
}

// TestAnswerCompact: version 3 writes no null, zero or false field and not
// the tags' duplicates; what a script reads is there when it is set.
func TestAnswerCompact(t *testing.T) {
	t.Parallel()
	ttft := int64(20_512_345)
	rec := &records.Record{V: records.Version, ID: "r-1", API: "openai-chat", Model: "m", Status: 200, StartNS: 1,
		E2ENS: 30_000_000, TTFTNS: &ttft, TextNS: []int64{ttft}, OutputTokens: 1, TokenSource: "usage", Finish: "stop"}
	o := &answerOptions{samples: &metrics.Options{}, red: redact.New(nil, nil)}
	b := appendAnswer(nil, newAnswer(rec, &stream.Record{}, o))
	want := `{"version":3,"ok":true,"status":200,"id":"r-1","tags":{"model":"m","api":"openai-chat","status":"200","error":"","token_source":"usage"},` +
		`"samples":{"llm_ttft":20.512,"llm_e2e":30,"llm_itl_zero_gaps":0,"llm_output_tokens":1,"llm_input_tokens":0,"llm_requests_failed":0},` +
		`"finish_reason":"stop","start_unix_ns":1,"output_tokens":1}` + "\n"
	if string(b) != want {
		t.Errorf("answer\n%s\nwant\n%s", b, want)
	}
	_, rest, _ := strings.Cut(string(b), `"samples":`) // after the tags
	for _, gone := range []string{"null", "false", `"model"`, `"api"`, `"token_source"`, `"sample_tags"`, `"error"`} {
		if strings.Contains(rest, gone) {
			t.Errorf("the answer has %s: %s", gone, b)
		}
	}
}
