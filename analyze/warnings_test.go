package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeSmallRun writes k6 JSON of n requests, one ending every 300 ms, with
// TTFT, TPOT, five ITL gaps, E2E, a client lag of lag ms, 10 output tokens
// and no failure each: a run as small as a first try.
func writeSmallRun(t *testing.T, path string, n int, lag float64) {
	t.Helper()
	var b bytes.Buffer
	for _, d := range [][2]string{{"llm_ttft", "trend"}, {"llm_tpot", "trend"}, {"llm_itl", "trend"}, {"llm_e2e", "trend"},
		{"llm_client_lag", "trend"}, {"llm_output_tokens", "counter"}, {"llm_requests_failed", "rate"}} {
		contains := "default"
		if d[1] == "trend" {
			contains = "time"
		}
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q},"metric":%q}`+"\n", d[0], d[1], contains, d[0])
	}
	start := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	point := func(metric string, i int, v float64) {
		fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%v,"tags":{"model":"m"},"metadata":{"llm_request_id":"r-%d"}}}`+"\n",
			metric, start.Add(time.Duration(i)*300*time.Millisecond).Format(time.RFC3339Nano), v, i)
	}
	for i := 0; i < n; i++ {
		point("llm_ttft", i, 100+float64(i%10))
		point("llm_tpot", i, 20+float64(i%10)/10)
		for k := 0; k < 5; k++ {
			point("llm_itl", i, 20+float64(k))
		}
		point("llm_e2e", i, 300+float64(i%10))
		point("llm_client_lag", i, lag)
		point("llm_output_tokens", i, 10)
		point("llm_requests_failed", i, 0)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// warningLines are the lines of the text summary's Warnings list.
func warningLines(out string) []string {
	_, list, ok := strings.Cut(out, "\nWarnings:\n")
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(list, "\n") {
		if strings.HasPrefix(l, "- ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// htmlSection is the text of the report's section with this class (the
// part of the page from its opening tag to its end), "" when absent.
func htmlSection(page, class string) string {
	_, rest, ok := strings.Cut(page, `<section class="`+class+`"`)
	if !ok {
		return ""
	}
	sec, _, _ := strings.Cut(rest, "</section>")
	return sec
}

// A small run says "too few samples" once per metric, listing the
// statistics it affects (issue 26 item 1): it said it twice per metric
// (once for the percentiles with fewer than two samples above them, once
// for the intervals left open), nine lines on this run.
func TestTooFewSamplesOneLinePerMetric(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "small.json")
	writeSmallRun(t, path, 30, 0.05)
	code, out, errs := run(t, nil, "summary", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := warningLines(out)
	for _, metric := range []string{"llm_ttft", "llm_tpot", "llm_itl", "llm_e2e", "llm_client_lag"} {
		var few []string
		for _, l := range lines {
			if strings.HasPrefix(l, "- "+metric+":") && strings.Contains(l, "few samples") {
				few = append(few, l)
			}
		}
		if len(few) != 1 {
			t.Errorf("%s: %d too-few-samples warnings, want 1: %q", metric, len(few), few)
			continue
		}
		stats := "p(90), p(95), p(99), p(99.9), p(99.99)" // 30 samples: p(90)'s interval is open, the rest have < 2 above
		if metric == "llm_itl" {
			stats = "p(99), p(99.9), p(99.99)" // 150 gaps
		}
		if !strings.Contains(few[0], "too few samples") || !strings.Contains(few[0], stats) {
			t.Errorf("%s: %q does not say too few samples for %s", metric, few[0], stats)
		}
	}
	if strings.Contains(errs, "few samples") {
		t.Errorf("percentile notes on stderr: %q", errs)
	}
	r := filepath.Join(dir, "r")
	if code, _, errs := run(t, nil, "report", "-o", r, path); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(r, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), "llm_ttft: too few samples (30) for"); n != 1 {
		t.Errorf("the report says llm_ttft has too few samples %d times, want 1", n)
	}
	if top := htmlSection(string(page), "warnings"); strings.Contains(top, "few samples") {
		t.Errorf("percentile notes at the top of the report: %s", top)
	}
}

// The load-generator warning is raised (stderr, the report's top) only when
// its rule has a verdict and llm_client_lag is selected (issue 26 item 3).
// Before: with 30 lag samples the health said "ok" and the lag's percentile
// notes went to stderr and the report's top, even with --metric llm_ttft;
// with --metric llm_ttft a limited run warned on stderr about a metric not
// selected.
func TestLoadGeneratorWarningOnlyWhenItFires(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small, enough := filepath.Join(dir, "small.json"), filepath.Join(dir, "enough.json")
	writeSmallRun(t, small, 30, 5)   // 5 ms: above 1 ms, but 30 < 100 samples
	writeSmallRun(t, enough, 150, 5) // 150 samples: the rule decides
	report := func(args ...string) (page, errs string) {
		t.Helper()
		r := filepath.Join(dir, fmt.Sprintf("r%d", len(args)), filepath.Base(args[len(args)-1]))
		code, _, errs := run(t, nil, append([]string{"report", "-o", r}, args...)...)
		if code != exitOK {
			t.Fatalf("report %v: exit %d: %s", args, code, errs)
		}
		b, err := os.ReadFile(filepath.Join(r, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b), errs
	}
	const limited = "results may be limited by the load generator"
	for _, args := range [][]string{{small}, {"--metric", "llm_ttft", small}} {
		code, out, errs := run(t, nil, append([]string{"summary"}, args...)...)
		if code != exitOK || errs != "" {
			t.Errorf("summary %v: exit %d, stderr %q; want 0 and nothing", args, code, errs)
		}
		if !strings.Contains(out, "no load-generator verdict: 30 client lag sample(s), the rule needs 100") || strings.Contains(out, limited) {
			t.Errorf("summary %v: the health does not say it has no verdict:\n%s", args, out)
		}
		page, errs := report(args...)
		if top := htmlSection(page, "warnings"); top != "" || errs != "" {
			t.Errorf("report %v: warnings at the top %q, stderr %q; want none", args, top, errs)
		}
		if !strings.Contains(page, "no load-generator verdict") {
			t.Errorf("report %v: the health does not say it has no verdict", args)
		}
	}
	// Enough samples, llm_client_lag selected (by default): raised.
	_, out, errs := run(t, nil, "summary", enough)
	if !strings.Contains(errs, "llm_client_lag: "+limited) || !strings.Contains(out, "LIMITED by the load generator") {
		t.Errorf("default selection: stderr %q:\n%s", errs, out)
	}
	if page, _ := report(enough); !strings.Contains(htmlSection(page, "warnings"), limited) {
		t.Error("default selection: the report's top does not warn")
	}
	// --metric llm_ttft: the verdict stays in the health table.
	_, out, errs = run(t, nil, "summary", "--metric", "llm_ttft", enough)
	if errs != "" || !strings.Contains(out, "LIMITED by the load generator") || slicesContain(warningLines(out), limited) {
		t.Errorf("--metric llm_ttft: stderr %q:\n%s", errs, out)
	}
	page, _ := report("--metric", "llm_ttft", enough)
	if top := htmlSection(page, "warnings"); strings.Contains(top, limited) || !strings.Contains(page, limited) {
		t.Errorf("--metric llm_ttft: the report's top %q; the verdict must be in the health lines only", top)
	}
	s := summaryJSON(t, "--metric", "llm_ttft", enough)
	if len(s.Health) != 1 || !s.Health[0].Limited || len(s.Alerts) != 0 {
		t.Errorf("--metric llm_ttft JSON: health %+v, alerts %q", s.Health, s.Alerts)
	}
}

// slicesContain reports whether a line of lines contains sub.
func slicesContain(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
