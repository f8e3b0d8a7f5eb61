package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func compareJSON(t *testing.T, wantCode int, args ...string) *compareReport {
	t.Helper()
	code, out, stderr := run(t, nil, append([]string{"compare", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("compare %v: exit %d, want %d: %s", args, code, wantCode, stderr)
	}
	var r compareReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Schema != CompareSchema {
		t.Fatalf("schema %q", r.Schema)
	}
	return &r
}

func findCompareGroup(t *testing.T, r *compareReport, metric, label string) compareGroup {
	t.Helper()
	for _, m := range r.Metrics {
		for _, g := range m.Groups {
			if m.Name == metric && g.Label == label {
				return g
			}
		}
	}
	t.Fatalf("no group %s %s in %+v", metric, label, r.Metrics)
	return compareGroup{}
}

func TestCompareCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	same := filepath.Join(dir, "same.json.gz")
	slow := filepath.Join(dir, "slow.json")
	writeK6JSON(t, base, 6000, lognormalGen(1, 6, 0.5, 1))
	writeK6JSON(t, same, 6000, lognormalGen(2, 6, 0.5, 1))
	writeK6JSON(t, slow, 6000, lognormalGen(3, 6, 0.5, 1.25)) // 25% slower

	// The same distribution: no change, and a limit holds.
	r := compareJSON(t, exitOK, base, same, "--max-regression", "p99=10%")
	g := findCompareGroup(t, r, "llm_ttft", "all")
	if g.Verdict != "no significant change" || g.Baseline != 6000 || g.Candidate != 6000 {
		t.Errorf("same distribution: %+v", g)
	}
	if !r.OK || len(r.Limits) != 1 || r.Limits[0].Broken {
		t.Errorf("same distribution: limits %+v", r.Limits)
	}

	// 25% slower: worse, each percentile's interval covers +25%, and the gate
	// fails on a 10% limit but not on a 50% one.
	r = compareJSON(t, exitCheckFailed, base, slow, "--by", "model", "--max-regression", "llm_ttft:p50=10%", "--max-regression", "p99=50%")
	for _, label := range []string{"model=a", "model=b"} {
		g := findCompareGroup(t, r, "llm_ttft", label)
		if g.Verdict != "worse" || g.KSP == nil || *g.KSP > 1e-6 {
			t.Errorf("%s: verdict %q, KS p %v", label, g.Verdict, g.KSP)
		}
		for _, c := range g.Changes {
			if c.Stat == "p99.9" {
				continue // 3,000 samples: too few
			}
			if c.RelLow == nil || *c.RelLow > 0.25 || *c.RelHigh < 0.25 {
				t.Errorf("%s %s: relative interval %v–%v misses +25%%", label, c.Stat, c.RelLow, c.RelHigh)
			}
		}
	}
	var broken, passed int
	for _, l := range r.Limits {
		switch {
		case l.Limit == "llm_ttft:p50=10%" && l.Broken:
			broken++
		case l.Limit == "p99=50%" && !l.Broken && l.Untested == "":
			passed++
		}
	}
	if broken != 2 || passed != 2 || r.OK {
		t.Errorf("limits: %+v", r.Limits)
	}

	// Text and Markdown say the same.
	code, out, _ := run(t, nil, "compare", base, slow, "--max-regression", "p50=10%")
	if code != exitCheckFailed || !strings.Contains(out, "llm_ttft — worse") || !strings.Contains(out, "BROKEN") {
		t.Errorf("text: exit %d:\n%s", code, out)
	}
	code, out, _ = run(t, nil, "compare", "--format", "markdown", base, slow)
	if code != exitOK || !strings.Contains(out, "### llm_ttft — worse") || !strings.Contains(out, "| P50 |") {
		t.Errorf("markdown: exit %d:\n%s", code, out)
	}
}

func TestCompareCommandFixtures(t *testing.T) {
	t.Parallel()
	// Two real k6 runs of the same seeded script (k6 v2 and v1): nothing
	// changed, and P99.9 rests on too few samples to be tested.
	r := compareJSON(t, exitOK, fixV2, fixV1, "--by", "model", "--metric", "llm_ttft", "--max-regression", "p99.9=10%")
	for _, m := range r.Metrics {
		for _, g := range m.Groups {
			if g.Verdict != "no significant change" {
				t.Errorf("%s %s: %s", m.Name, g.Label, g.Verdict)
			}
		}
	}
	for _, l := range r.Limits {
		if l.Broken || !strings.Contains(l.Untested, "too few samples for P99.9") {
			t.Errorf("limit %+v: want untested for too few samples", l)
		}
	}
	if len(r.Warnings) == 0 {
		t.Error("an untested limit gave no warning")
	}
}

func TestCompareCommandErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", fixV2}, "want two inputs"},
		{[]string{"compare", fixV2, fixV1, fixV1}, "want two inputs"},
		{[]string{"compare", fixV2, fixV1, "--max-regression", "p99"}, "want STAT=MAX"},
		{[]string{"compare", fixV2, fixV1, "--max-regression", "llm_nope:p99=5%"}, "no compared metric is named llm_nope"},
		{[]string{"compare", fixV2, fixV1, "--by", "file"}, "--by file does not apply"},
		{[]string{"compare", fixV2, fixV1, "--stats", "p100"}, "unknown statistic"},
		{[]string{"compare", fixV2, fixV1, "--confidence", "95"}, "--confidence 95"},
		{[]string{"compare", fixV2, fixV1, "--metric", "llm_requests_failed"}, "share no Trend metric"},
	} {
		code, _, stderr := run(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args[1:], code, stderr, exitUsage, tc.want)
		}
	}
}
