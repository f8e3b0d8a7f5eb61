package main

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

func TestSummaryGolden(t *testing.T) {
	t.Parallel()
	for _, f := range []struct{ format, file string }{
		{"text", "summary_by_model.txt"}, {"markdown", "summary_by_model.md"}, {"json", "summary_by_model.json"},
	} {
		t.Run(f.format, func(t *testing.T) {
			t.Parallel()
			code, out, errs := run(t, nil, "summary", "--by", "model", "--format", f.format, "--labels", "v2", fixV2)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, f.file, []byte(out))
		})
	}
}

func summaryJSON(t *testing.T, args ...string) *result.Summary {
	t.Helper()
	code, out, errs := run(t, nil, append([]string{"summary", "--format", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("summary %v: exit %d: %s", args, code, errs)
	}
	var s result.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != result.SummarySchema {
		t.Fatalf("schema %q", s.Schema)
	}
	return &s
}

func findGroup(t *testing.T, s *result.Summary, metric, label string) result.Group {
	t.Helper()
	for _, m := range s.Metrics {
		if m.Name != metric {
			continue
		}
		for _, g := range m.Groups {
			if g.Label == label {
				return g
			}
		}
	}
	t.Fatalf("no group %s of %s", label, metric)
	return result.Group{}
}

// TestSummaryMatchesK6Export runs the command on real k6 output and compares its
// JSON with k6's own --summary-export of the same run, to 1e-9 relative.
func TestSummaryMatchesK6Export(t *testing.T) {
	t.Parallel()
	for _, run := range []string{"k6v2_llm_synthetic", "k6v1_llm_synthetic"} {
		t.Run(run, func(t *testing.T) {
			t.Parallel()
			export := readK6Export(t, "../testdata/k6/"+run+"_summary.json")
			pcts := "--percentiles=50,90,95,99,99.9"
			all := summaryJSON(t, pcts, "../testdata/k6/"+run+".json.gz")
			byModel := summaryJSON(t, pcts, "--by", "model", "../testdata/k6/"+run+".json.gz")
			compared := 0
			for name, want := range export {
				var g result.Group
				switch {
				case name == "llm_ttft{model:model-b}":
					g = findGroup(t, byModel, "llm_ttft", "model=model-b")
				case strings.HasPrefix(name, "llm_") && name != "llm_output_tokens":
					g = findGroup(t, all, name, "all")
				default:
					continue
				}
				compared += compareExport(t, name, want, g)
			}
			if compared < 50 {
				t.Fatalf("compared only %d values", compared)
			}
		})
	}
}

func TestSummaryFailureRateAndKinds(t *testing.T) {
	t.Parallel()
	s := summaryJSON(t, "--metric", "llm_ttft", fixV2)
	g := findGroup(t, s, "llm_requests_failed", "all")
	// From k6's summary export: 21 passes (failures) of 638.
	if g.Count != 638 || *g.NonZero != 21 || math.Abs(*g.Rate-21.0/638) > 1e-15 {
		t.Errorf("failures %+v", g)
	}
	if g.ErrorKinds["reset_midstream"] != 10 || g.ErrorKinds["timeout"] != 9 || g.ErrorKinds["http_429"] != 2 {
		t.Errorf("error kinds %v", g.ErrorKinds)
	}
	// 3.29% is below the default 5%: no warning; above 3%: one, on stderr too.
	for _, w := range s.Warnings {
		if strings.Contains(w, "requests failed") {
			t.Errorf("unexpected warning %q", w)
		}
	}
	code, out, errs := run(t, nil, "summary", "--max-failure-rate", "0.03", fixV2)
	if code != exitOK || !strings.Contains(errs, "llm_requests_failed: 3.29% of 638 requests failed (above 3.00%)") ||
		!strings.Contains(out, "3.29% of 638 requests failed") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestSummarySelection(t *testing.T) {
	t.Parallel()
	count := func(s *result.Summary, metric string) int64 {
		var n int64
		for _, m := range s.Metrics {
			if m.Name == metric {
				for _, g := range m.Groups {
					n += g.Count
				}
			}
		}
		return n
	}
	// --where equals k6's submetric llm_ttft{model:model-b}: 292 samples.
	if n := count(summaryJSON(t, "--where", "model=model-b", fixV2), "llm_ttft"); n != 292 {
		t.Errorf("--where model=model-b: %d", n)
	}
	// Two conditions are ANDed; the groups of --by partition the samples.
	s := summaryJSON(t, "--where", "model=model-b", "--where", "scenario=ramp", fixV2)
	byScenario := summaryJSON(t, "--where", "model=model-b", "--by", "scenario", fixV2)
	if n := count(s, "llm_ttft"); n == 0 || n != findGroup(t, byScenario, "llm_ttft", "scenario=ramp").Count {
		t.Errorf("AND: %d", n)
	}
	if count(byScenario, "llm_ttft") != 292 {
		t.Error("groups do not partition")
	}
	// key= selects samples whose tag is empty or missing: the successful requests.
	if n := count(summaryJSON(t, "--where", "error=", "--metric", "llm_requests_failed", fixV2), "llm_requests_failed"); n != 638-21 {
		t.Errorf("--where error=: %d", n)
	}
	// A time window splits the samples: [0, 5s) and [5s, ∞) add up to all.
	total := count(summaryJSON(t, "--metric", "llm_itl", fixV2), "llm_itl")
	early := count(summaryJSON(t, "--metric", "llm_itl", "--to", "5s", fixV2), "llm_itl")
	late := count(summaryJSON(t, "--metric", "llm_itl", "--from", "5s", fixV2), "llm_itl")
	if early == 0 || late == 0 || early+late != total || total != 23874 {
		t.Errorf("window: %d + %d != %d", early, late, total)
	}
	// Any k6 metric when named: iteration_duration is a Trend, vus a Gauge.
	s = summaryJSON(t, "--metric", "iteration_duration,vus,iterations", fixV2)
	if g := findGroup(t, s, "iteration_duration", "all"); g.Count != 638 || math.Abs(*g.Mean-51.61339760658309) > 1e-9 {
		t.Errorf("iteration_duration %+v", g)
	}
	if g := findGroup(t, s, "vus", "all"); *g.Value != 2 || *g.Min != 1 || *g.Max != 7 {
		t.Errorf("vus %+v", g)
	}
	if g := findGroup(t, s, "iterations", "all"); *g.Sum != 638 || g.PerSecond == nil {
		t.Errorf("iterations %+v", g)
	}
}

func TestSummaryMergeAndPerFile(t *testing.T) {
	t.Parallel()
	merged := summaryJSON(t, "--metric", "llm_ttft", fixV2, fixV1)
	g := findGroup(t, merged, "llm_ttft", "all")
	if g.Count != 617+622 || len(merged.Inputs) != 2 {
		t.Fatalf("merged count %d", g.Count)
	}
	// The min of the merged population is the smaller of the two runs' minima.
	if *g.Min != math.Min(107.9090406399287, 69.52087843735875) {
		t.Errorf("merged min %v", *g.Min)
	}
	perFile := summaryJSON(t, "--metric", "llm_ttft", "--by", "file", "--labels", "v2,v1", fixV2, fixV1)
	if findGroup(t, perFile, "llm_ttft", "file=v2").Count != 617 || findGroup(t, perFile, "llm_ttft", "file=v1").Count != 622 {
		t.Error("per-file groups")
	}
}

func TestSummaryStdinGzipAndOutputFile(t *testing.T) {
	t.Parallel()
	plain := []byte(readPlain(t, fixV1))
	outFile := filepath.Join(t.TempDir(), "s.json")
	code, out, errs := run(t, plain, "summary", "--format", "json", "-o", outFile, "-")
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var s result.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	fromStdin := findGroup(t, &s, "llm_ttft", "all")
	fromFile := findGroup(t, summaryJSON(t, fixV1), "llm_ttft", "all")
	if fromStdin.Count != 622 || *fromStdin.Mean != *fromFile.Mean || s.Inputs[0].Path != "-" {
		t.Errorf("stdin %+v vs file %+v", fromStdin, fromFile)
	}
}

func TestSummaryDamagedAndCorruptInputs(t *testing.T) {
	t.Parallel()
	// The killed run: read up to the damage, warn, exit 0.
	code, out, errs := run(t, nil, "summary", "--format", "json", fixKilled)
	if code != exitOK || !strings.Contains(errs, "k6v2_killed.json.gz: data cut short") ||
		!strings.Contains(errs, "last line 21751 is incomplete") || !strings.Contains(errs, "21738 samples") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var s result.Summary
	json.Unmarshal([]byte(out), &s)
	if s.Inputs[0].Damage == "" || findGroup(t, &s, "llm_ttft", "all").Count != 443 {
		t.Errorf("killed: %+v", s.Inputs)
	}

	dir := t.TempDir()
	lines := strings.Split(readPlain(t, fixV1), "\n")
	lines[100] = `{"metric":"llm_itl","type":"Point","data":{"time":"2026-11-29T11:50:38`
	lines[200] = "garbage"
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o600)
	code, _, errs = run(t, nil, "summary", bad)
	if code != exitUsage || !strings.Contains(errs, "bad.json:101:") || !strings.Contains(errs, "--lenient") {
		t.Errorf("corrupt line: exit %d, stderr %q", code, errs)
	}
	code, _, errs = run(t, nil, "summary", "--lenient", bad)
	if code != exitOK || !strings.Contains(errs, "skipped 2 corrupt line(s) (lines 101, 201)") {
		t.Errorf("lenient: exit %d, stderr %q", code, errs)
	}
}

func readPlain(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSummaryUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"summary"}, "no input"},
		{[]string{"summary", "--format", "junit", fixV2}, "unknown --format"},
		{[]string{"summary", "--metric", "nope", fixV2}, `metric "nope" is not in the inputs`},
		{[]string{"summary", "--where", "model", fixV2}, "want key=value"},
		{[]string{"summary", "--from", "1m", "--to", "30s", fixV2}, "is not after"},
		{[]string{"summary", "--from", "soon", fixV2}, "want a duration"},
		{[]string{"summary", "--confidence", "95", fixV2}, "between 0 and 1"},
		{[]string{"summary", "--percentiles", "99,101", fixV2}, `"101" is not a percentile`},
		{[]string{"summary", "missing.json"}, "missing.json"},
		{[]string{"summary", "--labels", "a,b", fixV2}, "2 names for 1 inputs"},
		{[]string{"summary", "-", "-"}, "stdin"},
		{[]string{"summary", "--by", "model,model", fixV2}, "given twice"},
		{[]string{"summary", "--nope", fixV2}, "flag provided but not defined"},
	} {
		code, _, errs := run(t, nil, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

func TestSummaryArgumentsInAnyOrder(t *testing.T) {
	t.Parallel()
	a := summaryJSON(t, "--metric", "llm_ttft", "--by", "model", fixV2)
	b := summaryJSON(t, fixV2, "--metric", "llm_ttft", "--by=model")
	if len(a.Metrics) != len(b.Metrics) || findGroup(t, b, "llm_ttft", "model=model-b").Count != 292 {
		t.Error("flags after the file are not parsed")
	}
	if code, _, _ := run(t, nil, "summary", "-h"); code != exitOK {
		t.Errorf("-h: exit %d", code)
	}
}

func TestSummaryPercentileNotes(t *testing.T) {
	t.Parallel()
	s := summaryJSON(t, "--metric", "llm_ttft", "--percentiles", "p(99),99.9,p99.99", fixV2)
	g := findGroup(t, s, "llm_ttft", "all")
	if len(g.Percentiles) != 3 || g.Percentiles[0].Name != "p(99)" || g.Percentiles[2].Name != "p(99.99)" {
		t.Fatalf("%+v", g.Percentiles)
	}
	p99, p999 := g.Percentiles[0], g.Percentiles[1]
	// 617 samples: enough for p99 (200) but not p99.9 (2000).
	if p99.TooFew || !p999.TooFew || p999.MinSamples != 2000 || p999.CI.High != nil || p999.CI.HighRank != 618 {
		t.Errorf("p99 %+v p99.9 %+v", p99, p999)
	}
	if p99.CI.Low == nil || *p99.CI.Low > p99.Value || *p99.CI.High < p99.Value || p99.CI.Coverage < 0.95 {
		t.Errorf("p99 CI %+v", p99.CI)
	}
	joined := strings.Join(s.Warnings, "\n")
	if !strings.Contains(joined, "llm_ttft: too few samples (617) for p(99.9), p(99.99): p(99.9), p(99.99) rest on fewer than 2 samples above them (p(99.99) needs 20000)") {
		t.Errorf("warnings %q", joined)
	}
	if strconv.Itoa(p99.Rank) != "611" { // ⌈0.99·617⌉ = ⌈610.83⌉
		t.Errorf("rank %d", p99.Rank)
	}
}

// TestSummaryTailDiagnosis: each Trend group carries the tail diagnosis, in
// the JSON (with the figures behind it) and after the tables in text and
// Markdown, in the very words plot prints for the same group.
func TestSummaryTailDiagnosis(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "capped.json")
	// Requests time out at 2 s: about 8.5% of the values pile up at 2000 ms.
	gen := lognormalGen(7, 6.5, 0.8, 1)
	writeK6JSON(t, in, 6000, func(i int, at time.Duration) float64 { return math.Min(2000, gen(i, at)) })

	s := summaryJSON(t, "--by", "model", in)
	code, plotOut, errs := run(t, nil, "plot", in, "--by", "model", "-o", filepath.Join(dir, "x.svg"))
	if code != exitOK {
		t.Fatalf("plot: exit %d: %s", code, errs)
	}
	_, text, _ := run(t, nil, "summary", "--by", "model", in)
	_, md, _ := run(t, nil, "summary", "--by", "model", "--format", "markdown", in)
	for _, label := range []string{"model=a", "model=b"} {
		g := findGroup(t, s, "llm_ttft", label)
		tl := g.Tail
		if tl == nil {
			t.Fatalf("%s: no tail diagnosis", label)
		}
		if tl.Shape != "cliff" || tl.Cliff == nil || tl.Cliff.High != 2000 || tl.Cliff.Above != 0 || tl.Cliff.Share < 0.05 || tl.Cliff.Share > 0.12 {
			t.Errorf("%s: %+v (cliff %+v), want a cliff ending at 2000 holding ~8.5%% with none above", label, tl, tl.Cliff)
		}
		if tl.P99P50 == nil || *tl.P99P50 != *findPct(t, g, 99)/(*findPct(t, g, 50)) || tl.LongTailRatio != 3 || tl.ExtremeRatio != 1.5 {
			t.Errorf("%s: ratios %+v do not match the percentiles", label, tl)
		}
		if !strings.HasPrefix(tl.Sentence, "llm_ttft ("+label+"): cliff at 2000 ms") {
			t.Errorf("%s: sentence %q", label, tl.Sentence)
		}
		if !strings.Contains(plotOut, tl.Sentence+"\n") {
			t.Errorf("%s: plot printed another diagnosis than the summary's %q:\n%s", label, tl.Sentence, plotOut)
		}
		if !strings.Contains(text, "- "+tl.Sentence+"\n") || !strings.Contains(md, "- "+tl.Sentence+"\n") {
			t.Errorf("%s: the text or Markdown summary lacks the diagnosis", label)
		}
	}
	if n := strings.Count(text, "Tail diagnosis:"); n != 1 {
		t.Errorf("text: %d tail diagnosis blocks, want 1 (one Trend)", n)
	}
	// Rates have none.
	if g := findGroup(t, s, "llm_requests_failed", "model=a"); g.Tail != nil {
		t.Errorf("a Rate has a tail diagnosis: %+v", g.Tail)
	}
}

func findPct(t *testing.T, g result.Group, p float64) *float64 {
	t.Helper()
	for _, pc := range g.Percentiles {
		if pc.P == p {
			return &pc.Value
		}
	}
	t.Fatalf("no p(%g) in %s", p, g.Label)
	return nil
}
