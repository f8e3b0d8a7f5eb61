package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// writeHealthRun writes synthetic k6 JSON with the client-health and
// cache metrics: per model, n requests with an ITL of itl ms, a client lag
// of lag(i) ms, every fourth gap 0, and input/cached tokens. The zero gaps
// are llm_itl_zero_gaps as the module writes it (a Counter, one sample per
// request: its zero gaps), or with zeroGapRate as it did before (a Rate,
// one sample per gap).
func writeHealthRun(t *testing.T, path string, n int, zeroGapRate bool, models map[string]func(i int) float64) {
	t.Helper()
	var b bytes.Buffer
	zeroType := "counter"
	if zeroGapRate {
		zeroType = "rate"
	}
	for _, d := range []string{`"llm_itl","type":"trend","contains":"time"`, `"llm_client_lag","type":"trend","contains":"time"`,
		`"llm_itl_zero_gaps","type":"` + zeroType + `","contains":"default"`, `"llm_input_tokens","type":"counter","contains":"default"`,
		`"llm_cached_input_tokens","type":"counter","contains":"default"`} {
		name := strings.Split(d, `"`)[1]
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%s},"metric":%q}`+"\n", d, name)
	}
	start := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	point := func(metric string, at int, v float64, model string) {
		fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%v,"tags":{"model":%q}}}`+"\n",
			metric, start.Add(time.Duration(at)*10*time.Millisecond).Format(time.RFC3339Nano), v, model)
	}
	for i := 0; i < n; i++ {
		for _, model := range []string{"a", "b"} {
			lag := models[model]
			point("llm_itl", i, 20, model)
			point("llm_client_lag", i, lag(i), model)
			zero := 0
			if i%4 == 0 {
				zero = 1 // a quarter of the gaps were 0
			}
			point("llm_itl_zero_gaps", i, float64(zero), model)
			point("llm_input_tokens", i, 1000, model)
			cached := 0.0
			if model == "a" {
				cached = 600
			}
			point("llm_cached_input_tokens", i, cached, model)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The summary shows the client health and warns when the load generator
// may limit the results (the client lag's p50 above 1 ms: headroom.Judge),
// and the cache-hit share per group.
func TestSummaryClientHealthAndCache(t *testing.T) {
	t.Parallel()
	for _, rate := range []bool{false, true} {
		t.Run(fmt.Sprintf("zero-gap-rate=%v", rate), func(t *testing.T) { testSummaryClientHealth(t, rate) })
	}
}

func testSummaryClientHealth(t *testing.T, zeroGapRate bool) {
	path := filepath.Join(t.TempDir(), "health.json")
	writeHealthRun(t, path, 400, zeroGapRate, map[string]func(int) float64{
		"a": func(i int) float64 { return 0.05 + 0.0001*float64(i%100) }, // healthy: p99 < 0.07 ms
		"b": func(i int) float64 { return 0.6 + 0.01*float64(i%100) },    // p50 ≈ 1.1 ms > 1 ms
	})
	s := summaryJSON(t, "--by", "model", path)
	if len(s.Health) != 2 || len(s.CacheHits) != 2 {
		t.Fatalf("health %+v, cache %+v", s.Health, s.CacheHits)
	}
	a, b := s.Health[0], s.Health[1]
	if a.Label != "model=a" || a.Limited || *a.ZeroGapShare != 0.25 || a.Gaps != 400 || *a.ITLP50 != 20 || *a.LagP99 > 0.07 || a.LagCount != 400 {
		t.Errorf("model=a: %+v", a)
	}
	if !b.Limited || *b.LagP50 <= 1 || !strings.Contains(b.Warning, "results may be limited by the load generator") {
		t.Errorf("model=b: %+v", b)
	}
	if c := s.CacheHits[0]; c.Label != "model=a" || *c.Share != 0.6 || c.Cached != 240000 || c.Input != 400000 {
		t.Errorf("cache model=a: %+v", c)
	}
	if c := s.CacheHits[1]; *c.Share != 0 {
		t.Errorf("cache model=b: %+v", c)
	}
	// llm_client_lag selected (by default): the warning is on stderr too.
	code, out, errs := run(t, nil, "summary", "--by", "model", path)
	if code != exitOK || !strings.Contains(out, "LIMITED by the load generator") ||
		!strings.Contains(errs, "llm_client_lag (model=b): results may be limited by the load generator: client lag p50") {
		t.Errorf("text: exit %d, stderr %q:\n%s", code, errs, out)
	}
	// --metric llm_itl: llm_client_lag is not selected, so the verdict is
	// the health table's alone (issue 26 item 3).
	code, out, errs = run(t, nil, "summary", "--by", "model", "--metric", "llm_itl", path)
	if code != exitOK || !strings.Contains(out, "Client health") || !strings.Contains(out, "LIMITED by the load generator") ||
		strings.Contains(errs, "load generator") {
		t.Errorf("text --metric llm_itl: exit %d, stderr %q:\n%s", code, errs, out)
	}
	if strings.Contains(out, "Prompt cache") {
		t.Error("--metric llm_itl: the token counters were not read, yet a cache share is shown")
	}
}

// The report shows the same client health and cache-hit share.
func TestReportClientHealthAndCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "health.json")
	writeHealthRun(t, path, 400, false, map[string]func(int) float64{
		"a": func(int) float64 { return 0.05 },
		"b": func(i int) float64 { return 0.6 + 0.01*float64(i%100) },
	})
	if code, _, errs := run(t, nil, "report", "--by", "model", "-o", filepath.Join(dir, "r"), path); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(dir, "r", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"prompt cache (model=a): 60.00% of 400,000 input tokens cached", "llm_client_lag (model=b): lag p99",
		"results may be limited by the load generator"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// A Counter's rate per second of inputs merged is their concatenation's
// (the union's span), and with --by file each input's own span.
func TestCounterPerSecondMergedAndByFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := strings.SplitAfter(readPlain(t, fixV2), "\n")
	var parts, decls []string
	for _, l := range lines {
		if strings.Contains(l, `"type":"Metric"`) {
			decls = append(decls, l)
		}
	}
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("part%d.json", i))
		chunk := lines[i*len(lines)/3 : (i+1)*len(lines)/3]
		if i > 0 { // each shard declares its metrics, as each k6 instance does
			chunk = append(slices.Clone(decls), chunk...)
		}
		if err := os.WriteFile(p, []byte(strings.Join(chunk, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	perSecond := func(s *result.Summary, label string) float64 {
		g := findGroup(t, s, "llm_output_tokens", label)
		if g.PerSecond == nil {
			t.Fatalf("%s: no per_second", label)
		}
		return *g.PerSecond
	}
	whole := perSecond(summaryJSON(t, "--metric", "llm_output_tokens", fixV2), "all")
	merged := perSecond(summaryJSON(t, append([]string{"--metric", "llm_output_tokens"}, parts...)...), "all")
	if merged != whole {
		t.Errorf("merged %v, the concatenation %v", merged, whole)
	}
	byFile := summaryJSON(t, append([]string{"--metric", "llm_output_tokens", "--by", "file", "--labels", "a,b,c"}, parts...)...)
	for i, label := range []string{"file=a", "file=b", "file=c"} {
		alone := perSecond(summaryJSON(t, "--metric", "llm_output_tokens", parts[i]), "all")
		if got := perSecond(byFile, label); got != alone {
			t.Errorf("--by file %s: %v, the file alone %v", label, got, alone)
		}
	}
}

// The summary applies the rule's CPU clause too: a group whose median
// request ran with the load generator's CPUs almost all busy
// (llm_client_cpu_idle) is LIMITED though its client lag is small.
func TestSummaryClientCPUIdle(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "health.json")
	healthy := func(int) float64 { return 0.05 }
	writeHealthRun(t, path, 400, false, map[string]func(int) float64{"a": healthy, "b": healthy})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"type":"Metric","data":{"name":"llm_client_cpu_idle","type":"trend","contains":"default"},"metric":"llm_client_cpu_idle"}`)
	at := time.Date(2026, 11, 29, 14, 0, 5, 0, time.UTC).Format(time.RFC3339Nano)
	for i := 0; i < 400; i++ {
		for model, idle := range map[string]float64{"a": 0.9, "b": 0.05} {
			fmt.Fprintf(f, `{"metric":"llm_client_cpu_idle","type":"Point","data":{"time":%q,"value":%v,"tags":{"model":%q}}}`+"\n", at, idle, model)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	s := summaryJSON(t, "--by", "model", path)
	if len(s.Health) != 2 {
		t.Fatalf("health %+v", s.Health)
	}
	a, b := s.Health[0], s.Health[1]
	if a.Limited || a.CPUIdleP50 == nil || *a.CPUIdleP50 != 0.9 {
		t.Errorf("model=a: %+v, want not limited at 90%% idle", a)
	}
	if !b.Limited || b.CPUIdleP50 == nil || *b.CPUIdleP50 != 0.05 || !strings.Contains(b.Warning, "5% idle") {
		t.Errorf("model=b: %+v, want limited at 5%% idle", b)
	}
}
