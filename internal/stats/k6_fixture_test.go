package stats_test

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// TestMatchesK6SummaryExport reads real k6 runs and checks every statistic k6
// printed in its --summary-export of the same run, to 1e-9 relative: p(N), avg,
// min, med, max and count of each Trend (submetrics included), the value and
// counts of each Rate, the count of each Counter, a Gauge's value, min and max.
// A Counter's per-second rate is not compared: k6 divides by the test's own
// duration, which its JSON output does not record.
func TestMatchesK6SummaryExport(t *testing.T) {
	t.Parallel()
	for _, run := range []string{"k6v2_llm_synthetic", "k6v1_llm_synthetic"} {
		t.Run(run, func(t *testing.T) {
			t.Parallel()
			compareWithSummary(t, "../../testdata/k6/"+run+".json.gz", "../../testdata/k6/"+run+"_summary.json")
		})
	}
}

func compareWithSummary(t *testing.T, data, summary string) {
	raw, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	var export struct {
		Metrics map[string]map[string]json.RawMessage `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &export); err != nil {
		t.Fatal(err)
	}
	values := map[string][]float64{}
	types := map[string]k6json.Type{}
	type sub struct {
		name, parent string
		tags         []k6json.Tag
	}
	var subs []sub
	for name := range export.Metrics {
		if i := strings.IndexByte(name, '{'); i > 0 {
			var tags []k6json.Tag
			for _, kv := range strings.Split(name[i+1:len(name)-1], ",") {
				k, v, _ := strings.Cut(kv, ":")
				tags = append(tags, k6json.Tag{Key: k, Value: v})
			}
			subs = append(subs, sub{name, name[:i], tags})
		}
	}
	s := &k6json.Scanner{
		OnMetric: func(m *k6json.Metric) error { types[m.Name] = m.Type; return nil },
		OnPoint: func(p *k6json.Point) error {
			values[p.Metric] = append(values[p.Metric], p.Value)
			for _, sm := range subs {
				if sm.parent == p.Metric && p.Tags.Contains(sm.tags) {
					values[sm.name] = append(values[sm.name], p.Value)
				}
			}
			return nil
		},
	}
	if _, err := s.ScanFile(data, nil); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for name, want := range export.Metrics {
		vals := values[name]
		typ := types[name]
		if i := strings.IndexByte(name, '{'); i > 0 {
			typ = types[name[:i]]
		}
		for key, rawv := range want {
			if key == "thresholds" {
				continue
			}
			w, err := strconv.ParseFloat(string(rawv), 64)
			if err != nil {
				t.Fatalf("%s %s: %s", name, key, rawv)
			}
			var got float64
			switch {
			case typ == k6json.Trend:
				sorted := slices.Clone(vals)
				slices.Sort(sorted)
				sum := stats.Summarize(sorted, stats.Options{Percentiles: []float64{}, Confidence: 0.95})
				switch key {
				case "avg":
					got = sum.Mean
				case "min":
					got = sum.Min
				case "max":
					got = sum.Max
				case "count":
					got = float64(sum.Count)
				case "med":
					got, _ = stats.Percentile(sorted, 50)
				default:
					n, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(key, "p("), ")"), 64)
					if err != nil {
						t.Fatalf("%s: unknown stat %s", name, key)
					}
					got, _ = stats.Percentile(sorted, n)
				}
			case typ == k6json.Rate:
				nonzero := 0
				for _, v := range vals {
					if v != 0 {
						nonzero++
					}
				}
				switch key {
				case "value":
					got = float64(nonzero) / float64(len(vals))
				case "passes":
					got = float64(nonzero)
				case "fails":
					got = float64(len(vals) - nonzero)
				}
			case typ == k6json.Counter:
				if key == "rate" {
					continue
				}
				for _, v := range vals {
					got += v
				}
			case typ == k6json.Gauge:
				switch key {
				case "value":
					got = vals[len(vals)-1]
				case "min":
					got = slices.Min(vals)
				case "max":
					got = slices.Max(vals)
				}
			default:
				t.Fatalf("%s: no declaration", name)
			}
			if got != w && math.Abs(got-w) > 1e-9*math.Abs(w) {
				t.Errorf("%s %s: analyze %v, k6 %v", name, key, got, w)
			}
			checked++
		}
	}
	if checked < 70 {
		t.Fatalf("only %d statistics compared", checked)
	}
	t.Logf("%d statistics equal to k6's", checked)
}
