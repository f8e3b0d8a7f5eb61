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

	"github.com/llmstream/xk6-llmstream/analyze/output"
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

func summaryJSON(t *testing.T, args ...string) *output.Summary {
	t.Helper()
	code, out, errs := run(t, nil, append([]string{"summary", "--format", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("summary %v: exit %d: %s", args, code, errs)
	}
	var s output.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != output.SummarySchema {
		t.Fatalf("schema %q", s.Schema)
	}
	return &s
}

func findGroup(t *testing.T, s *output.Summary, metric, label string) output.Group {
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
	return output.Group{}
}

// TestSummaryMatchesK6Export runs the command on real k6 output and compares its
// JSON with k6's own --summary-export of the same run, to 1e-9 relative.
func TestSummaryMatchesK6Export(t *testing.T) {
	t.Parallel()
	for _, run := range []string{"k6v2_llm_synthetic", "k6v1_llm_synthetic"} {
		t.Run(run, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile("../testdata/k6/" + run + "_summary.json")
			if err != nil {
				t.Fatal(err)
			}
			var export struct {
				Metrics map[string]map[string]any `json:"metrics"`
			}
			if err := json.Unmarshal(raw, &export); err != nil {
				t.Fatal(err)
			}
			pcts := "--percentiles=50,90,95,99,99.9"
			all := summaryJSON(t, pcts, "../testdata/k6/"+run+".json.gz")
			byModel := summaryJSON(t, pcts, "--by", "model", "../testdata/k6/"+run+".json.gz")
			compared := 0
			for name, want := range export.Metrics {
				var g output.Group
				switch {
				case name == "llm_ttft{model:model-b}":
					g = findGroup(t, byModel, "llm_ttft", "model=model-b")
				case strings.HasPrefix(name, "llm_") && name != "llm_output_tokens":
					g = findGroup(t, all, name, "all")
				default:
					continue
				}
				for key, wv := range want {
					w, ok := wv.(float64)
					if !ok {
						continue
					}
					var got float64
					switch key {
					case "count":
						got = float64(g.Count)
					case "avg":
						got = *g.Mean
					case "min":
						got = *g.Min
					case "max":
						got = *g.Max
					case "value":
						got = *g.Rate
					case "passes":
						got = float64(*g.NonZero)
					case "fails":
						got = float64(g.Count - *g.NonZero)
					case "med":
						key = "p(50)"
						fallthrough
					default:
						found := false
						for _, p := range g.Percentiles {
							if p.Name == key {
								got, found = p.Value, true
							}
						}
						if !found {
							t.Fatalf("%s: no %s", name, key)
						}
					}
					if got != w && math.Abs(got-w) > 1e-9*math.Abs(w) {
						t.Errorf("%s %s: analyze %v, k6 %v", name, key, got, w)
					}
					compared++
				}
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
	count := func(s *output.Summary, metric string) int64 {
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
	f, err := os.Open(fixV1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(t.TempDir(), "s.json")
	code, out, errs := run(t, plain, "summary", "--format", "json", "-o", outFile, "-")
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var s output.Summary
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
	var s output.Summary
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
	if !strings.Contains(joined, "llm_ttft: p(99.9), p(99.99) rest on fewer than 2 samples above them (617 samples; p(99.99) needs 20000)") {
		t.Errorf("warnings %q", joined)
	}
	if strconv.Itoa(p99.Rank) != "611" { // ⌈0.99·617⌉ = ⌈610.83⌉
		t.Errorf("rank %d", p99.Rank)
	}
}
