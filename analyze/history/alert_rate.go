package history

import (
	"fmt"

	"github.com/llmstream/xk6-llmstream/internal/compare"
)

// evalRate tests a rate limit (llm_requests_failed:rate=+1pp) on every run of
// a series: the run's rate against the window's runs pooled (their requests
// summed), with Newcombe's interval of the difference (compare.CompareRates).
// A failure rate is worse higher, a success rate (llm_slo_met) lower.
func evalRate(s *Series, metric string, l compare.RegressionLimit, o Options) []Verdict {
	var prior []compare.Proportion
	var out []Verdict
	lower := compare.RateLowerIsBetter(metric)
	for k, r := range s.Runs {
		var p compare.Proportion
		found := false
		for _, rt := range r.Group.Rates {
			if rt.Metric == metric {
				p, found = compare.Proportion{NonZero: rt.NonZero, Count: rt.Count}, rt.Count > 0
			}
		}
		if !found {
			continue
		}
		v := newVerdict(s, metric, l, k)
		v.Value = f64(p.Rate())
		window := prior[max(0, len(prior)-o.Window):]
		prior = append(prior, p)
		v.Window = len(window)
		if len(window) < MinBaseline {
			v.Status = NoBaseline
			v.Reason = fmt.Sprintf("%d earlier runs, %d needed", len(window), MinBaseline)
			out = append(out, v)
			continue
		}
		var pool compare.Proportion
		for _, w := range window {
			pool.NonZero += w.NonZero
			pool.Count += w.Count
		}
		ch, err := compare.CompareRates(pool, p, o.Level, lower)
		if err != nil {
			v.Status, v.Reason = Inconclusive, err.Error()
			out = append(out, v)
			continue
		}
		v.Reference, v.Threshold, v.Low = f64(pool.Rate()), f64(pool.Rate()+sign(lower)*l.Max), f64(ch.Worsening())
		v.Status = OK
		v.Reason = fmt.Sprintf("worse by at least %s than the window's pooled rate %s", pctPoints(ch.Worsening()), pctText(pool.Rate()))
		if ch.Worsening() > l.Max {
			v.Status, v.Kind = Regression, Step
		}
		out = append(out, v)
	}
	return out
}

func sign(lowerIsBetter bool) float64 {
	if lowerIsBetter {
		return 1
	}
	return -1
}

func pctPoints(v float64) string { return fmt.Sprintf("%+.2fpp", 100*v) }
