package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/history"
)

// nightly appends simulated nightly runs to a history with analyze summary:
// run k is a day after run k−1; scale gives its latency factor and n its
// request count.
func nightly(t *testing.T, dir, hist string, runs int, scale func(k int) float64, n func(k int) int, label func(k int) string) {
	t.Helper()
	const day = 24 * time.Hour / (10 * time.Millisecond) // requests are 10 ms apart
	for k := 0; k < runs; k++ {
		in := filepath.Join(dir, fmt.Sprintf("run%d.json", k))
		gen := lognormalGen(uint64(100+k), 6, 0.5, scale(k))
		k6Run{first: k * int(day), n: n(k), gen: func(i int, at time.Duration) float64 { return gen(i, at) }, failEvery: 50}.write(t, in)
		code, _, stderr := run(t, nil, "summary", in, "--by", "model", "--history", hist, "--label", label(k), "--format", "json", "-o", filepath.Join(dir, "s.json"))
		if code != exitOK {
			t.Fatalf("summary --history run %d: exit %d: %s", k, code, stderr)
		}
	}
}

func TestHistoryCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hist := filepath.Join(dir, "runs.jsonl")
	const runs = 8 // the last one is a release 60% slower
	nightly(t, dir, hist, runs,
		func(k int) float64 { return map[bool]float64{true: 1.6, false: 1}[k == runs-1] },
		func(int) int { return 4000 },
		func(k int) string { return map[bool]string{true: "v1.5.0", false: "v1.4.2"}[k == runs-1] })

	code, stdout, stderr := run(t, nil, "history", hist)
	if code != exitOK {
		t.Fatalf("history: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"llm_ttft — model=a", "llm_ttft — model=b", "P99 [CI]", "failed", "regression (step: llm_ttft P50", "Latest runs:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("history output lacks %q:\n%s", want, stdout)
		}
	}
	if code, _, _ := run(t, nil, "history", hist, "--fail-on", "regression"); code != exitCheckFailed {
		t.Errorf("--fail-on regression with a step in the last run: exit %d, want 99", code)
	}

	code, stdout, stderr = run(t, nil, "history", hist, "--format", "json", "-o", filepath.Join(dir, "trend.svg"), "--report", filepath.Join(dir, "rep"))
	if code != exitOK {
		t.Fatalf("history --format json -o trend.svg: exit %d: %s", code, stderr)
	}
	jsonPart := stdout[:strings.LastIndex(stdout, "}")+1]
	var rep history.Report
	if err := json.Unmarshal([]byte(jsonPart), &rep); err != nil {
		t.Fatalf("JSON output: %v", err)
	}
	if rep.Schema != history.ReportSchema || rep.Records != runs || len(rep.Series) != 2 || rep.OK {
		t.Errorf("JSON report: schema %q, %d records, %d series, ok %v", rep.Schema, rep.Records, len(rep.Series), rep.OK)
	}
	for _, v := range rep.Alerts {
		if v.Status == history.Regression && v.Run != runs-1 {
			t.Errorf("alert on run %d before the step: %+v", v.Run, v)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "trend.svg"))
	if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "v1.5.0") {
		t.Errorf("trend.svg: %v, or it lacks the change label", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "rep", "index.html"))
	if err != nil || !strings.Contains(string(page), `<section id="history">`) {
		t.Errorf("report: %v, or it has no history section", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rep", "llm_ttft-trend.png")); err != nil {
		t.Errorf("report figure: %v", err)
	}
}

func TestHistoryInconclusiveFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hist := filepath.Join(dir, "runs.jsonl")
	const runs = 5 // the last run is too short for P99
	nightly(t, dir, hist, runs, func(int) float64 { return 1 },
		func(k int) int { return map[bool]int{true: 200, false: 3000}[k == runs-1] }, func(int) string { return "v1" })
	code, _, stderr := run(t, nil, "history", hist, "--fail-on", "regression")
	if code != exitCheckFailed {
		t.Errorf("inconclusive last run: exit %d, want 99 (%s)", code, stderr)
	}
	code, stdout, _ := run(t, nil, "history", hist, "--fail-on", "regression", "--allow-inconclusive")
	if code != exitOK || !strings.Contains(stdout, "inconclusive") || !strings.Contains(stdout, "needed") {
		t.Errorf("--allow-inconclusive: exit %d, want 0 with the inconclusive verdict and the samples needed:\n%s", code, stdout)
	}
}

func TestHistoryUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"schema":"xk6-llmstream/analyze-history/v1","version":1,"start":"2026-01-01T00:00:00Z","groups":[]}`+"\nnot json\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "run.json")
	writeK6JSON(t, in, 100, lognormalGen(1, 6, 0.5, 1))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"history", bad}, "bad.jsonl:2: invalid JSON"},
		{[]string{"history", bad, "--fail-on", "drift"}, "--fail-on"},
		{[]string{"history", bad, "--max-regression", "avg=5%"}, "not avg"},
		{[]string{"history", bad, "-o", "trend.jpg"}, "-o"},
		{[]string{"history"}, "want one history file"},
		{[]string{"summary", in, "--label", "v1"}, "add --history"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, nil, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
