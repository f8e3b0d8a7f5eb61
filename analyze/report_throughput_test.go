package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// The report shows the same throughput as analyze summary: n requests with
// ids, one ending every 200 ms, 10 output tokens each.
func TestReportThroughputMatchesSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	var b bytes.Buffer
	for _, d := range []string{`"llm_ttft","type":"trend","contains":"time"`, `"llm_e2e","type":"trend","contains":"time"`,
		`"llm_requests_failed","type":"rate","contains":"default"`, `"llm_output_tokens","type":"counter","contains":"default"`,
		`"llm_input_tokens","type":"counter","contains":"default"`} {
		name := strings.Split(d, `"`)[1]
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%s},"metric":%q}`+"\n", d, name)
	}
	start := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	const n = 50
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * 200 * time.Millisecond).Format(time.RFC3339Nano)
		for _, s := range []struct {
			metric string
			v      float64
		}{{"llm_ttft", 100}, {"llm_e2e", 300}, {"llm_requests_failed", 0}, {"llm_output_tokens", 10}, {"llm_input_tokens", 100}} {
			fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%v,"tags":{"model":"m"},"metadata":{"llm_request_id":"1-%d"}}}`+"\n",
				s.metric, at, s.v, i)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, nil, "summary", "--format", "json", path)
	if code != exitOK {
		t.Fatalf("summary: exit %d: %s", code, errs)
	}
	var sum result.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Throughput) != 1 || sum.Throughput[0].RPS.Value == nil {
		t.Fatalf("summary throughput: %+v", sum.Throughput)
	}
	// By hand: the window runs from the first request's end to the last's
	// (49 × 200 ms), and the 49 requests that ended after the first count.
	tp := sum.Throughput[0]
	if want := float64(n-1) / (float64(n-1) * 0.2); *tp.RPS.Value != want {
		t.Errorf("req/s %v, want %v", *tp.RPS.Value, want)
	}
	if code, _, errs := run(t, nil, "report", "-o", filepath.Join(dir, "r"), path); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(dir, "r", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Throughput and goodput", output.RateText(tp.RPS) + " req/s",
		"output " + output.RateText(tp.OutputTPS) + " tok/s"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// The report's two output tok/s figures each say their window (issue 26
// item 4): the Throughput line's (first to last request end) and the
// counter's per second (its samples' span, as k6's counter rate), which
// differed without a word on why.
func TestReportSaysEachThroughputWindow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	writeSmallRun(t, path, 50, 0.05)
	if code, _, errs := run(t, nil, "report", "-o", filepath.Join(dir, "r"), path); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.Contains(page, "/s over 14.7s, from the first sample to the last") {
		t.Error("the counter's per-second figure does not say its window")
	}
	if !strings.Contains(page, "in 14.70 s from the first request end to the last") {
		t.Error("the throughput line does not say its window")
	}
}
