package output

import (
	"fmt"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// throughputTables writes each group's throughput and goodput with their
// intervals, then the per-request rates' percentiles.
func throughputTables(w *errWriter, md bool, s *result.Summary, render func(*table)) {
	if len(s.Throughput) == 0 {
		return
	}
	title := fmt.Sprintf("Throughput (measured window: first to last request end; %g%% CI: Poisson for requests, compound Poisson for tokens)", 100*s.Confidence)
	if md {
		title = "### " + title
	}
	t := &table{title: title, header: []string{"group", "window s", "requests", "failed", "req/s", "achieved req/s", "output tok/s", "total tok/s", "goodput req/s", "goodput by"},
		right: []bool{false, true, true, true, true, true, true, true, true, false}}
	for _, g := range s.Throughput {
		by := g.GoodputSource
		if by == "" {
			by = "—"
		}
		t.add(g.Label, Number(g.WindowS), Number(float64(g.Requests)), Number(float64(g.Failed)),
			RateText(g.RPS), RateText(g.AchievedRPS), RateText(g.OutputTPS), RateText(g.TotalTPS), RateText(g.GoodputRPS), by)
	}
	render(t)
	ciHead := fmt.Sprintf("%g%% CI", 100*s.Confidence)
	p := &table{header: []string{"group", "per request", "count", "percentile", "tok/s", ciHead}, right: []bool{false, false, true, false, true, false}}
	for _, g := range s.Throughput {
		label := g.Label
		for _, d := range []struct {
			name string
			dist result.RateDist
		}{{"output tok/s (over e2e)", g.RequestOutputTPS}, {"prefill tok/s (input/TTFT)", g.RequestPrefillTPS}} {
			name, count := d.name, Number(float64(d.dist.Count))
			for _, pc := range d.dist.Percentiles {
				p.add(label, name, count, pc.Name, Number(pc.Value), ciText(pc.CI))
				label, name, count = "", "", ""
			}
		}
	}
	if len(p.rows) > 0 {
		render(p)
	}
}

// RateText is a rate with its interval: "12.3 [11.6, 13.1]", or "—".
func RateText(r result.Rate) string {
	if r.Value == nil {
		return "—"
	}
	s := Number(*r.Value)
	if r.Low != nil && r.High != nil {
		s += " [" + Number(*r.Low) + ", " + Number(*r.High) + "]"
	}
	return s
}
