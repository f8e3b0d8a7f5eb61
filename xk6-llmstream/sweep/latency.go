package sweep

import (
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// LatencyMetrics are the distributions every level reports.
var LatencyMetrics = []string{MetricTTFT, MetricTPOT, MetricITL}

// LatencyPercentiles are the percentiles reported of each.
var LatencyPercentiles = []float64{50, 90, 99}

// distOf summarises sorted samples with stats: k6's p(N) and the
// order-statistic interval of each reported percentile.
func distOf(metric string, sorted []float64, confidence float64) Dist {
	o := stats.DefaultOptions()
	o.Percentiles, o.Confidence = LatencyPercentiles, confidence
	s := stats.Summarize(sorted, o)
	d := Dist{Metric: metric, Count: s.Count, Percentiles: []Quantile{}}
	for _, p := range s.Percentiles {
		d.Percentiles = append(d.Percentiles, Quantile{Name: p.Name, Value: num(p.Value), CI: Interval{Low: num(p.CI.Lo), High: num(p.CI.Hi)}})
	}
	return d
}
