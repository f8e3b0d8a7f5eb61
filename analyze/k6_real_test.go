package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// realK6Script emits seeded samples: a time Trend with a submetric, a plain
// Trend with negative values, a Rate and a Counter. Its thresholds make k6 put
// the submetric llm_ttft{model:b} in the summary export.
const realK6Script = `
import { Trend, Rate, Counter } from 'k6/metrics';
const ttft = new Trend('llm_ttft', true);
const plain = new Trend('plain_trend');
const failed = new Rate('llm_requests_failed');
const tokens = new Counter('llm_output_tokens');
export const options = {
  vus: 1, iterations: 1,
  thresholds: { 'llm_ttft{model:b}': ['p(99)<1e12'], 'llm_ttft': ['p(99.9)<1e12'] },
};
let s = 12345; // mulberry32
function rnd() { s |= 0; s = s + 0x6D2B79F5 | 0; let t = Math.imul(s ^ s >>> 15, 1 | s); t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t; return ((t ^ t >>> 14) >>> 0) / 4294967296; }
export default function () {
  for (let i = 0; i < 20011; i++) {
    const z = Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
    ttft.add(Math.exp(6 + 0.7 * z), { model: i % 3 === 0 ? 'b' : 'a' });
    plain.add(rnd() * 1000 - 200);
    failed.add(rnd() < 0.03, { error: 'timeout' });
    tokens.add(Math.floor(rnd() * 100));
  }
}
`

// TestAgainstRealK6 runs the k6 binary named by K6_BIN on a script that emits
// seeded samples, and compares every statistic of k6's --summary-export (p(50)
// to p(99.99), avg, min, med, max, count, a Rate's value, a Counter's count)
// with analyze's, to 1e-9 relative. Run it once per k6 version:
//
//	K6_BIN=/path/to/k6 go test ./analyze -run RealK6
func TestAgainstRealK6(t *testing.T) {
	k6 := os.Getenv("K6_BIN")
	if k6 == "" {
		t.Skip("K6_BIN is not set: set K6_BIN to a k6 binary (v1.x or v2.x) to compare analyze with real k6")
	}
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "seeded.js")
	if err := os.WriteFile(script, []byte(realK6Script), 0o600); err != nil {
		t.Fatal(err)
	}
	results, summary := filepath.Join(dir, "out.json"), filepath.Join(dir, "summary.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, k6, "run", "-q", "--no-usage-report", "--out", "json="+results,
		"--summary-export="+summary,
		"--summary-trend-stats", "avg,min,med,max,p(50),p(90),p(95),p(99),p(99.9),p(99.99),count", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", k6, err, out)
	}
	export := readK6Export(t, summary)
	pcts := "--percentiles=50,90,95,99,99.9,99.99"
	all := summaryJSON(t, pcts, "--metric", "llm_ttft,plain_trend,llm_requests_failed,llm_output_tokens", results)
	byModel := summaryJSON(t, pcts, "--metric", "llm_ttft", "--by", "model", results)
	compared := 0
	for _, name := range []string{"llm_ttft", "llm_ttft{model:b}", "plain_trend", "llm_requests_failed", "llm_output_tokens"} {
		want, ok := export[name]
		if !ok {
			t.Fatalf("k6's summary has no %s", name)
		}
		var g result.Group
		if name == "llm_ttft{model:b}" {
			g = findGroup(t, byModel, "llm_ttft", "model=b")
		} else {
			g = findGroup(t, all, name, "all")
		}
		compared += compareExport(t, name, want, g)
	}
	if compared < 30 {
		t.Fatalf("only %d values compared", compared)
	}
	t.Logf("%s: %d statistics equal to k6's", k6, compared)
}

// readK6Export reads k6's --summary-export: the statistics of each metric.
func readK6Export(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var export struct {
		Metrics map[string]map[string]any `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &export); err != nil {
		t.Fatal(err)
	}
	return export.Metrics
}

// compareExport compares each statistic k6 exported for a metric with
// analyze's group, to 1e-9 relative, and returns how many it compared.
func compareExport(t *testing.T, name string, want map[string]any, g result.Group) int {
	t.Helper()
	compared := 0
	for key, wv := range want {
		w, ok := wv.(float64)
		if !ok {
			continue
		}
		var got float64
		switch {
		case key == "rate" && g.Sum != nil:
			continue // a Counter's: per second of k6's own test duration, not in its JSON output
		case key == "count" && g.Sum != nil:
			got = *g.Sum
		case key == "count":
			got = float64(g.Count)
		case key == "avg":
			got = *g.Mean
		case key == "min":
			got = *g.Min
		case key == "max":
			got = *g.Max
		case key == "value":
			got = *g.Rate
		case key == "passes":
			got = float64(*g.NonZero)
		case key == "fails":
			got = float64(g.Count - *g.NonZero)
		case key == "med" || strings.HasPrefix(key, "p("):
			if key == "med" {
				key = "p(50)"
			}
			found := false
			for _, p := range g.Percentiles {
				if p.Name == key {
					got, found = p.Value, true
				}
			}
			if !found {
				t.Fatalf("%s: analyze has no %s", name, key)
			}
		default:
			continue
		}
		if got != w && math.Abs(got-w) > 1e-9*math.Abs(w) {
			t.Errorf("%s %s: analyze %v, k6 %v", name, key, got, w)
		}
		compared++
	}
	return compared
}
