package figures

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/history"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// syntheticHistory is runs × series records with llm_ttft percentiles and
// intervals, built directly (reading that many k6 runs would measure the
// reader, not the trend).
func syntheticHistory(runs, series int) *history.File {
	r := rand.New(rand.NewPCG(1, 2))
	day0 := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	f := &history.File{Name: "history.jsonl"}
	for k := 0; k < runs; k++ {
		rec := history.Record{Schema: history.Schema, Version: history.Version, Label: "v" + strconv.Itoa(k/50), Confidence: 0.95,
			Start: day0.Add(time.Duration(k) * 24 * time.Hour), Selection: result.Selection{By: []string{"concurrency"}}}
		rec.End = rec.Start.Add(10 * time.Minute)
		for s := 0; s < series; s++ {
			c := strconv.Itoa(1 << s)
			tr := history.Trend{Metric: "llm_ttft", Unit: "ms", Count: 2000}
			for _, p := range []float64{50, 90, 99} {
				v := (300 + 40*float64(s)) * math.Exp(0.5*2.326*p/99) * (1 + 0.03*r.NormFloat64())
				lo, hi := 0.96*v, 1.04*v
				tr.Percentiles = append(tr.Percentiles, result.Percentile{Name: fmt.Sprintf("p(%g)", p), P: p, Value: v, CI: result.CI{Low: &lo, High: &hi}})
			}
			rec.Groups = append(rec.Groups, history.Group{Label: "concurrency=" + c, Labels: map[string]string{"concurrency": c}, Trends: []history.Trend{tr}})
		}
		f.Records = append(f.Records, rec)
		f.Lines = append(f.Lines, int64(k+1))
	}
	return f
}

// TestHistoryTrend: a recorded metric draws, with its label changes; one
// that no run recorded has nothing to draw.
func TestHistoryTrend(t *testing.T) {
	t.Parallel()
	series := history.SeriesOf(syntheticHistory(120, 2))
	vs := history.Evaluate(series, history.Options{})
	fig, err := HistoryTrend(series, "llm_ttft", nil, vs, plot.DPI(120))
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := fig.Encode(&svg, plot.SVG); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"llm_ttft", "v1", "v2", "concurrency=1", "concurrency=2"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("the trend's SVG lacks %q", want)
		}
	}
	if _, err := HistoryTrend(series, "llm_tpot", nil, vs); !errors.Is(err, plot.ErrNoData) {
		t.Errorf("llm_tpot (not recorded): err %v, want plot.ErrNoData", err)
	}
}

// BenchmarkRenderHistory1000x10 renders the trend of 1,000 runs × 10 series:
// series, alerts, the figure, and its SVG and PNG.
func BenchmarkRenderHistory1000x10(b *testing.B) {
	f := syntheticHistory(1000, 10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		series := history.SeriesOf(f)
		vs := history.Evaluate(series, history.Options{})
		t1 := time.Now()
		fig, err := HistoryTrend(series, "llm_ttft", nil, vs)
		if err != nil {
			b.Fatal(err)
		}
		var svg, png bytes.Buffer
		if err := fig.Encode(&svg, plot.SVG); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := fig.Encode(&png, plot.PNG); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		b.Logf("1,000 runs × 10 series: series+alerts %v (%d verdicts), figure+SVG %v (%d KB), PNG %v (%d KB)",
			t1.Sub(t0).Round(time.Millisecond), len(vs), t2.Sub(t1).Round(time.Millisecond), svg.Len()>>10, t3.Sub(t2).Round(time.Millisecond), png.Len()>>10)
	}
}
