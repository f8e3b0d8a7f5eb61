package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// syntheticHistory is runs × series records with llm_ttft percentiles and
// intervals, built directly (reading that many k6 runs would measure the
// reader, not the trend).
func syntheticHistory(runs, series int) *File {
	r := rand.New(rand.NewPCG(1, 2))
	var recs []Record
	for k := 0; k < runs; k++ {
		rec := Record{Schema: Schema, Version: Version, Label: "v" + strconv.Itoa(k/50), Confidence: 0.95,
			Start: day0.Add(time.Duration(k) * 24 * time.Hour), Selection: result.Selection{By: []string{"concurrency"}}}
		rec.End = rec.Start.Add(10 * time.Minute)
		for s := 0; s < series; s++ {
			c := strconv.Itoa(1 << s)
			tr := Trend{Metric: "llm_ttft", Unit: "ms", Count: 2000}
			for _, p := range []float64{50, 90, 99} {
				v := (300 + 40*float64(s)) * math.Exp(0.5*2.326*p/99) * (1 + 0.03*r.NormFloat64())
				lo, hi := 0.96*v, 1.04*v
				tr.Percentiles = append(tr.Percentiles, result.Percentile{Name: fmt.Sprintf("p(%g)", p), P: p, Value: v, CI: result.CI{Low: &lo, High: &hi}})
			}
			rec.Groups = append(rec.Groups, Group{Label: "concurrency=" + c, Labels: map[string]string{"concurrency": c}, Trends: []Trend{tr}})
		}
		recs = append(recs, rec)
	}
	return historyOf(recs)
}

// BenchmarkHistorySeries1000x10 computes the series and alerts of 1,000
// runs × 10 series (figures.BenchmarkRenderHistory1000x10 draws them).
func BenchmarkHistorySeries1000x10(b *testing.B) {
	f := syntheticHistory(1000, 10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		series := SeriesOf(f)
		vs := Evaluate(series, Options{})
		b.Logf("1,000 runs × 10 series: series+alerts %v (%d verdicts)", time.Since(t0).Round(time.Millisecond), len(vs))
	}
}
