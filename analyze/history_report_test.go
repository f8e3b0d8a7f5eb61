package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The history page says what was tested (issue 26 item 4): a history of two
// runs (no baseline yet) with --allow-inconclusive showed a green "last runs
// pass" badge although nothing was tested, "0 inputs" under the title, and a
// footer about ECDFs and k6 --out json output, which the page has none of.
func TestHistoryReportSaysWhatWasTested(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hist := filepath.Join(dir, "runs.jsonl")
	nightly(t, dir, hist, 2, func(int) float64 { return 1 }, func(int) int { return 400 }, func(int) string { return "v1" })
	page := func(args ...string) string {
		t.Helper()
		out := filepath.Join(dir, "rep"+strings.Join(args, ""))
		if code, _, errs := run(t, nil, append([]string{"history", hist, "--report", out}, args...)...); code != exitOK {
			t.Fatalf("history %v: exit %d: %s", args, code, errs)
		}
		b, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, args := range [][]string{nil, {"--allow-inconclusive"}} {
		p := page(args...)
		if strings.Contains(p, "last runs pass") || strings.Contains(p, `class="badge pass"`) {
			t.Errorf("%v: a pass badge with nothing tested", args)
		}
		if !strings.Contains(p, "nothing tested on the last runs") {
			t.Errorf("%v: the badge does not say nothing was tested", args)
		}
		if strings.Contains(p, "0 inputs") || strings.Contains(p, "ECDF") || strings.Contains(p, "--out json") {
			t.Errorf("%v: the page speaks of inputs, ECDFs or k6 output it does not have", args)
		}
		if !strings.Contains(p, "analyze history") {
			t.Errorf("%v: the footer does not say analyze history made the page", args)
		}
	}
}
