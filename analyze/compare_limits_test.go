package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// A bare --max-regression limit applies to the latency metrics compared,
// not to llm_client_lag, the client's own health (issue 26 item 4): it
// was tested on llm_client_lag too. Named, it still applies. The limits'
// lines are a table whose columns line up: they were printed with fixed
// widths, so the result column wandered with the change and its interval.
func TestCompareBareLimitSkipsClientLag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "base.json"), filepath.Join(dir, "cand.json")
	writeSmallRun(t, base, 250, 0.05)
	writeSmallRun(t, cand, 250, 0.5)
	_, out, errs := run(t, nil, "compare", "--max-regression", "p99=10%", base, cand)
	block := out[strings.Index(out, "regression limits"):]
	if strings.Contains(block, "llm_client_lag") || strings.Contains(errs, "llm_client_lag") {
		t.Errorf("a bare p99=10%% was tested on llm_client_lag:\n%s\nstderr %q", block, errs)
	}
	for _, m := range []string{"llm_ttft", "llm_tpot", "llm_itl", "llm_e2e"} {
		if !strings.Contains(block, m) {
			t.Errorf("a bare p99=10%% was not tested on %s:\n%s", m, block)
		}
	}
	_, out, _ = run(t, nil, "compare", "--max-regression", "llm_client_lag:p99=10%", base, cand)
	if !strings.Contains(out[strings.Index(out, "regression limits"):], "llm_client_lag") {
		t.Errorf("llm_client_lag:p99=10%% named was not tested:\n%s", out)
	}
	// Columns: every row's result starts where the header's "result" does.
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")[1:]
	if len(lines) < 5 || !strings.Contains(lines[0], "result") {
		t.Fatalf("no header with a result column:\n%s", block)
	}
	col := utf8.RuneCountInString(lines[0][:strings.Index(lines[0], "result")])
	for _, l := range lines[1:] {
		r := []rune(l)
		if len(r) <= col || r[col-1] != ' ' || r[col] == ' ' {
			t.Errorf("row %q: its result does not start at column %d", l, col)
		}
	}
}
