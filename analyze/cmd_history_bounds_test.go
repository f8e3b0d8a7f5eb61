package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/history"
)

// TestHistoryNoBaselineFailsClosed: a series with fewer runs than the gate
// compares with cannot be decided; --fail-on regression exits 99 and says
// how many runs it needs, unless --allow-inconclusive.
func TestHistoryNoBaselineFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hist := filepath.Join(dir, "runs.jsonl")
	nightly(t, dir, hist, 2, func(int) float64 { return 1 }, func(int) int { return 3000 }, func(int) string { return "v1" })

	code, stdout, stderr := run(t, nil, "history", hist, "--fail-on", "regression")
	if code != exitCheckFailed {
		t.Errorf("two runs, no baseline: exit %d, want 99\nstdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "no baseline") || !strings.Contains(stderr, "2 runs") || !strings.Contains(stderr, "needs 4") ||
		!strings.Contains(stderr, "--allow-inconclusive") {
		t.Errorf("stderr %q: want it to say no baseline, 2 runs, the gate needs 4, and name --allow-inconclusive", stderr)
	}
	code, _, stderr = run(t, nil, "history", hist, "--fail-on", "regression", "--allow-inconclusive")
	if code != exitOK {
		t.Errorf("--allow-inconclusive: exit %d, want 0 (%s)", code, stderr)
	}
	if code, _, stderr = run(t, nil, "history", hist); code != exitOK {
		t.Errorf("without --fail-on: exit %d, want 0 (%s)", code, stderr)
	}
}

// TestHistoryFigureNamesAreSafe: a metric name is made safe for a file name
// as analyze report makes it (figures.SafeName): -o and --report write
// inside their folder, never where a '/' or '..' in the name would lead.
func TestHistoryFigureNamesAreSafe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hist := filepath.Join(dir, "runs.jsonl")
	nightly(t, dir, hist, 2, func(int) float64 { return 1 }, func(int) int { return 3000 }, func(int) string { return "v1" })
	const evil = "../evil/ttft"
	addTrend(t, hist, evil)

	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, nil, "history", hist, "-o", filepath.Join(out, "trend.svg"), "--report", filepath.Join(out, "rep"))
	if code != exitOK {
		t.Fatalf("history with metric %q: exit %d: %s", evil, code, stderr)
	}
	for _, want := range []string{
		filepath.Join(out, "trend-llm_ttft.svg"),
		filepath.Join(out, "trend-___evil_ttft.svg"),
		filepath.Join(out, "rep", "llm_ttft-trend.png"),
		filepath.Join(out, "rep", "___evil_ttft-trend.png"),
	} {
		if _, err := os.Stat(want); err != nil {
			t.Errorf("%v (stdout %s)", err, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "evil")); err == nil {
		t.Errorf("a figure was written outside the -o folder: %s", filepath.Join(dir, "evil"))
	}
}

// addTrend adds to every group of every record of a history a copy of its
// first Trend named metric.
func addTrend(t *testing.T, hist, metric string) {
	t.Helper()
	data, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec history.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		for i := range rec.Groups {
			c := rec.Groups[i].Trends[0]
			c.Metric = metric
			rec.Groups[i].Trends = append(rec.Groups[i].Trends, c)
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(hist, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
