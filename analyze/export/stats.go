package export

import (
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// extraTrends are the summary's Trends the schema has no field for, written
// as ad-hoc Observability entries under their metric names, with units.
var extraTrends = []struct{ name, units string }{
	{metrics.ITLMax, unitMS},
	{metrics.TTFTAnswer, unitMS},
	{metrics.TTFTScheduled, unitMS},
	{metrics.E2EScheduled, unitMS},
	{metrics.Fluidity, unitFraction},
}

// extras are our figures where the schema leaves room: the Trends above,
// goodput (queries/s, the summary's rule and source) and the deadline
// goodput share (llm_deadline_met, a fraction).
func extras(sum *result.Summary, tp result.Throughput) map[string]Extra {
	out := map[string]Extra{}
	for _, e := range extraTrends {
		if s := trend(sum, e.name, e.units); s != nil {
			out[e.name] = Extra{Statistics: *s}
		}
	}
	if g := value(tp.GoodputRPS); g != nil {
		out[metrics.Prefix+"goodput"] = Extra{Statistics: Statistics{Units: unitQueriesS, Mean: *g}}
	}
	for _, m := range sum.Metrics {
		if m.Name == metrics.DeadlineMet && len(m.Groups) == 1 && m.Groups[0].Rate != nil {
			out[m.Name] = Extra{Statistics: Statistics{Units: unitFraction, Mean: *m.Groups[0].Rate}}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// trend is a Trend metric's statistics in the summary (its one group); nil
// when absent or empty.
func trend(sum *result.Summary, name, units string) *Statistics {
	for _, m := range sum.Metrics {
		if m.Name != name || len(m.Groups) != 1 {
			continue
		}
		g := m.Groups[0]
		if g.Count == 0 || g.Mean == nil {
			return nil
		}
		s := &Statistics{Units: units, Mean: *g.Mean, Min: g.Min, Max: g.Max}
		for _, p := range g.Percentiles {
			if f := s.field(p.P); f != nil {
				*f = f64(p.Value)
			}
		}
		return s
	}
	return nil
}

// distribution is the statistics of sorted values by analyze's percentile
// (stats.Summarize); nil when empty.
func distribution(sorted []float64, units string) *Statistics {
	if len(sorted) == 0 {
		return nil
	}
	o := stats.DefaultOptions()
	o.Percentiles = Percentiles
	sm := stats.Summarize(sorted, o)
	s := &Statistics{Units: units, Mean: sm.Mean, Min: f64(sm.Min), Max: f64(sm.Max)}
	for _, p := range sm.Percentiles {
		if f := s.field(p.P); f != nil {
			*f = f64(p.Value)
		}
	}
	return s
}

// field is the schema's field of a percentile (nil: none).
func (s *Statistics) field(p float64) **float64 {
	switch p {
	case 0.1:
		return &s.P0p1
	case 1:
		return &s.P1
	case 5:
		return &s.P5
	case 10:
		return &s.P10
	case 25:
		return &s.P25
	case 50:
		return &s.P50
	case 75:
		return &s.P75
	case 90:
		return &s.P90
	case 95:
		return &s.P95
	case 99:
		return &s.P99
	case 99.9:
		return &s.P99p9
	}
	return nil
}

func mean(v *float64, units string) *Statistics {
	if v == nil {
		return nil
	}
	return &Statistics{Units: units, Mean: *v}
}

func value(r result.Rate) *float64 { return r.Value }

func f64(v float64) *float64 { return &v }
