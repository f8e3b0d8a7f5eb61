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

// writeCostRun writes synthetic k6 JSON: per model, n requests, each with an
// llm_cost sample of cost[model] and an llm_e2e sample.
func writeCostRun(t *testing.T, path string, n int, cost map[string]float64) {
	t.Helper()
	var b bytes.Buffer
	for _, d := range []string{`"llm_e2e","type":"trend","contains":"time"`, `"llm_cost","type":"counter","contains":"default"`} {
		name := strings.Split(d, `"`)[1]
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%s},"metric":%q}`+"\n", d, name)
	}
	start := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		for _, model := range []string{"a", "b"} {
			at := start.Add(time.Duration(i) * 10 * time.Millisecond).Format(time.RFC3339Nano)
			for metric, v := range map[string]float64{"llm_e2e": 100, "llm_cost": cost[model]} {
				fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%v,"tags":{"model":%q}}}`+"\n", metric, at, v, model)
			}
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The summary gives the cost per request and in all, per group and for the
// run, in JSON, text and Markdown; the report shows the same lines.
func TestSummaryAndReportCost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "cost.json")
	// Binary fractions: the sums are exact.
	writeCostRun(t, path, 8, map[string]float64{"a": 0.000244140625, "b": 0.0009765625})

	s := summaryJSON(t, "--by", "model", path)
	c := s.Cost
	if c == nil || len(c.Groups) != 2 {
		t.Fatalf("cost %+v, want two groups", c)
	}
	if c.Requests != 16 || c.Total != 8*0.000244140625+8*0.0009765625 || *c.PerRequest != c.Total/16 {
		t.Errorf("run cost %+v", c)
	}
	for i, want := range []struct {
		label      string
		total, per float64
	}{{"model=a", 0.001953125, 0.000244140625}, {"model=b", 0.0078125, 0.0009765625}} {
		g := c.Groups[i]
		if g.Label != want.label || g.Requests != 8 || g.Total != want.total || g.PerRequest == nil || *g.PerRequest != want.per {
			t.Errorf("group %d: %+v, want %+v", i, g, want)
		}
	}
	if one := summaryJSON(t, path).Cost; one == nil || len(one.Groups) != 1 || one.Groups[0].Label != "all" || one.Total != c.Total {
		t.Errorf("ungrouped cost %+v", one)
	}

	code, out, errs := run(t, nil, "summary", "--by", "model", path)
	if code != exitOK {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	for _, want := range []string{"Cost (llm_cost, in the currency of the Client's prices)", "0.0002441", "0.001953", "run (all groups)", "0.009766"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ = run(t, nil, "summary", "--by", "model", "--format", "markdown", path); code != exitOK || !strings.Contains(out, "### Cost (llm_cost") {
		t.Errorf("markdown: exit %d:\n%s", code, out)
	}

	if code, _, errs := run(t, nil, "report", "--by", "model", "-o", filepath.Join(dir, "r"), path); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(dir, "r", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"llm_cost (model=a): 0.001953 in all over 8 requests, 0.0002441 per request",
		"run (all groups): 0.009766 in all over 16 requests, 0.0006104 per request"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// Without llm_cost there is no cost, in JSON or text.
func TestSummaryWithoutCost(t *testing.T) {
	t.Parallel()
	if s := summaryJSON(t, fixV2); s.Cost != nil {
		t.Errorf("cost %+v without llm_cost samples", s.Cost)
	}
	if _, out, _ := run(t, nil, "summary", fixV2); strings.Contains(out, "Cost (") {
		t.Errorf("text shows a cost without llm_cost:\n%s", out)
	}
}
