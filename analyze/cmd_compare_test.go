package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

func compareJSON(t *testing.T, wantCode int, args ...string) *result.Comparison {
	t.Helper()
	code, out, stderr := run(t, nil, append([]string{"compare", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("compare %v: exit %d, want %d: %s", args, code, wantCode, stderr)
	}
	var r result.Comparison
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Schema != result.CompareSchema {
		t.Fatalf("schema %q", r.Schema)
	}
	return &r
}

func findCompareGroup(t *testing.T, r *result.Comparison, metric, label string) result.CompareGroup {
	t.Helper()
	for _, m := range r.Metrics {
		for _, g := range m.Groups {
			if m.Name == metric && g.Label == label {
				return g
			}
		}
	}
	t.Fatalf("no group %s %s in %+v", metric, label, r.Metrics)
	return result.CompareGroup{}
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

	// 5% slower against a 5% limit: the interval straddles it.
	near := filepath.Join(dir, "near.json")
	writeK6JSON(t, near, 6000, lognormalGen(4, 6, 0.5, 1.05))
	r = compareJSON(t, exitCheckFailed, base, near, "--max-regression", "p50=5%")
	if l := r.Limits[0]; l.Verdict != result.Inconclusive || l.Broken || *l.Low > 0.05 || *l.High < 0.05 ||
		l.NeededSamples <= 6000 || !strings.Contains(l.Reason, "straddles the limit p50=5%") {
		t.Errorf("straddling limit: %+v", l)
	}
	code, out, _ := run(t, nil, "compare", base, near, "--max-regression", "p50=5%")
	if code != exitCheckFailed || !strings.Contains(out, "INCONCLUSIVE: the interval of the change straddles") {
		t.Errorf("text, inconclusive: exit %d:\n%s", code, out)
	}

	// Text and Markdown say the same.
	code, out, _ = run(t, nil, "compare", base, slow, "--max-regression", "p50=10%")
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
	// An untested limit is inconclusive, which fails the gate (before, it
	// passed: a P99.9 gate on a short run could never fail) unless accepted.
	closed := compareJSON(t, exitCheckFailed, fixV2, fixV1, "--by", "model", "--metric", "llm_ttft", "--max-regression", "p99.9=10%")
	if closed.OK || closed.Inconclusive != 2 {
		t.Errorf("ok %v, inconclusive %d: want 2 inconclusive, not ok", closed.OK, closed.Inconclusive)
	}
	for _, l := range closed.Limits {
		if l.Verdict != result.Inconclusive || l.NeededSamples != 2000 || !strings.Contains(l.Reason, "too few samples for P99.9") {
			t.Errorf("limit %+v: want inconclusive, 2000 samples needed", l)
		}
	}
	r := compareJSON(t, exitOK, fixV2, fixV1, "--by", "model", "--metric", "llm_ttft", "--max-regression", "p99.9=10%", "--allow-inconclusive")
	if !r.OK || !r.AllowInconclusive || r.Inconclusive != 2 {
		t.Errorf("--allow-inconclusive: ok %v, inconclusive %d", r.OK, r.Inconclusive)
	}
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
		{[]string{"compare", fixV2, fixV1, "--metric", "llm_output_tokens"}, "share no Trend or Rate metric"},
		{[]string{"compare", "--base", fixV2}, "--base and --candidate go together"},
		{[]string{"compare", "--base", fixV2, "--candidate", fixV1, fixV1}, "not both"},
		{[]string{"compare", "--base", "-", "--candidate", "-"}, "stdin (-) can be read only once"},
		{[]string{"compare", fixV2, fixV1, "--labels", "a,b,c"}, "want 2 names, got 3"},
		{[]string{"compare", fixV2, fixV1, "--labels", "a,a"}, `both sides are named "a"`},
		{[]string{"compare", fixV2, fixV1, "--stats", "rate"}, "--stats lists Trend statistics"},
		{[]string{"compare", fixV2, fixV1, "--max-regression", "llm_ttft:rate=1pp"}, "llm_ttft is a Trend"},
		{[]string{"compare", fixV2, fixV1, "--max-regression", "llm_requests_failed:p99=5%"}, "llm_requests_failed is a Rate"},
		{[]string{"compare", fixV2, fixV1, "--max-regression", "llm_requests_failed:rate=1%"}, "percentage points"},
		{[]string{"compare", fixV2, fixV1, "--metric", "llm_ttft", "--max-regression", "rate=1pp"}, "no Rate metric was compared"},
	} {
		code, _, stderr := run(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args[1:], code, stderr, exitUsage, tc.want)
		}
	}
}

func findRateGroup(t *testing.T, r *result.Comparison, metric, label string) (result.CompareRate, result.RateGroup) {
	t.Helper()
	for _, m := range r.Rates {
		for _, g := range m.Groups {
			if m.Name == metric && g.Label == label {
				return m, g
			}
		}
	}
	t.Fatalf("no rate group %s %s in %+v", metric, label, r.Rates)
	return result.CompareRate{}, result.RateGroup{}
}

// TestCompareRates compares the Rates of two runs: a failure rate from 2% to
// 8.3% is worse and breaks a +1pp limit but not a +10pp one; the share of
// requests under an SLO falls when the candidate is slower, which is worse
// for a rate where higher is better.
func TestCompareRates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	cand := filepath.Join(dir, "cand.json")
	k6Run{n: 6000, gen: lognormalGen(1, 6, 0.5, 1), failEvery: 50, sloMs: 600}.write(t, base)
	k6Run{n: 6000, gen: lognormalGen(3, 6, 0.5, 1.25), failEvery: 12, sloMs: 600}.write(t, cand)

	r := compareJSON(t, exitCheckFailed, base, cand, "--max-regression", "llm_requests_failed:rate=+1pp", "--max-regression", "rate=+10pp")
	m, g := findRateGroup(t, r, "llm_requests_failed", "all")
	if !m.LowerIsBetter || g.Verdict != "worse" || g.Baseline.Count != 6000 || g.Baseline.NonZero != 120 || g.Candidate.NonZero != 500 {
		t.Errorf("llm_requests_failed: %+v %+v", m, g)
	}
	if want := 500.0/6000 - 120.0/6000; math.Abs(g.Delta-want) > 1e-12 || g.DeltaLow > want || g.DeltaHigh < want || g.DeltaLow < 0.01 {
		t.Errorf("llm_requests_failed: change %v [%v, %v], want %v with the interval above +1pp", g.Delta, g.DeltaLow, g.DeltaHigh, want)
	}
	m, g = findRateGroup(t, r, "llm_slo_met", "all")
	if m.LowerIsBetter || g.Verdict != "worse" || g.Delta >= 0 {
		t.Errorf("llm_slo_met: %+v %+v", m, g)
	}
	results := map[string]bool{}
	for _, l := range r.Limits {
		results[l.Limit+" "+l.Metric] = l.Broken
	}
	want := map[string]bool{
		"llm_requests_failed:rate=1pp llm_requests_failed": true,
		"rate=10pp llm_requests_failed":                    false,
		"rate=10pp llm_slo_met":                            true, // ≈ 78.5% → 63.5%: 15pp fewer
	}
	if len(results) != len(want) {
		t.Errorf("limits %v, want %v", results, want)
	}
	for k, v := range want {
		if b, ok := results[k]; !ok || b != v {
			t.Errorf("limit %s: broken %v (present %v), want %v", k, b, ok, v)
		}
	}

	// The same failure rate: no change; text and Markdown show the table.
	code, out, _ := run(t, nil, "compare", base, base, "--metric", "llm_requests_failed")
	if code != exitOK || !strings.Contains(out, "llm_requests_failed (rate, lower is better") ||
		!strings.Contains(out, "2.00% (120 of 6,000)") || !strings.Contains(out, "  0.00pp  -0.50pp … +0.50pp") || !strings.Contains(out, "no significant change") {
		t.Errorf("text: exit %d:\n%s", code, out)
	}
	code, out, _ = run(t, nil, "compare", "--format", "markdown", base, cand, "--metric", "llm_requests_failed")
	if code != exitOK || !strings.Contains(out, "| all | 2.00% (120 of 6,000) | 8.33% (500 of 6,000) | +6.33pp |") {
		t.Errorf("markdown: exit %d:\n%s", code, out)
	}
}

// TestCompareSeveralFilesPerSide splits the baseline run in two shards: with
// --base given twice, the merged side gives the same comparison as the whole
// file, and the report lists both files.
func TestCompareSeveralFilesPerSide(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	shard1 := filepath.Join(dir, "shard1.json")
	shard2 := filepath.Join(dir, "shard2.json.gz")
	cand := filepath.Join(dir, "cand.json")
	k6Run{n: 4000, gen: lognormalGen(1, 6, 0.5, 1), failEvery: 50}.write(t, whole)
	gen := lognormalGen(1, 6, 0.5, 1) // the same values, in two files
	k6Run{first: 0, n: 2500, gen: gen, failEvery: 50}.write(t, shard1)
	k6Run{first: 2500, n: 1500, gen: gen, failEvery: 50}.write(t, shard2)
	k6Run{n: 4000, gen: lognormalGen(2, 6, 0.5, 1.1), failEvery: 40}.write(t, cand)

	one := compareJSON(t, exitOK, whole, cand, "--by", "model")
	two := compareJSON(t, exitOK, "--base", shard1, "--candidate", cand, "--base", shard2, "--by", "model")
	a, _ := json.Marshal([]any{one.Metrics, one.Rates})
	b, _ := json.Marshal([]any{two.Metrics, two.Rates})
	if string(a) != string(b) {
		t.Errorf("two shards compare differently from the whole file:\n%s\n%s", a, b)
	}
	if len(two.BaselineFiles) != 2 || two.BaselineFiles[1].Path != shard2 || len(two.CandidateFiles) != 1 ||
		two.Baseline.Path != shard1+", "+shard2 || two.Baseline.Kept != one.Baseline.Kept || two.Baseline.Label != "baseline" ||
		two.Baseline.Start != one.Baseline.Start || two.Baseline.Lines != two.BaselineFiles[0].Lines+two.BaselineFiles[1].Lines {
		t.Errorf("inputs: %+v\n%+v", two.Baseline, two.BaselineFiles)
	}
	if g := findCompareGroup(t, two, "llm_ttft", "model=a"); g.Baseline != 2000 {
		t.Errorf("merged baseline has %d samples of model=a, want 2000", g.Baseline)
	}
}
