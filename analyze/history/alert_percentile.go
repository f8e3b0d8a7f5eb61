package history

import (
	"fmt"
	"slices"

	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// evalPercentile tests a percentile limit on every run of a series.
//
// A run is a regression when the lower bound of its percentile's interval is
// above the window's pooled upper bound with the limit added. The pooled
// upper bound is the largest upper bound of the window's runs: the quantile
// of the runs pooled lies at or below the largest of their quantiles, which
// lies below that run's upper bound with the interval's one-sided confidence.
// A run that follows the trend of a trending window is a creep, else a step;
// a run that is not above the window's largest bound but above its oldest
// run's bound, after a window with a significant upward trend, is a creep.
func evalPercentile(s *Series, metric string, l compare.RegressionLimit, o Options) []Verdict {
	n, _ := l.Stat.Percent()
	pts := s.Points(metric, n)
	var prior []int // earlier runs with the percentile
	step := make([]bool, len(pts))
	var out []Verdict
	for k, pt := range pts {
		if pt.Missing {
			continue
		}
		v := newVerdict(s, metric, l, k)
		v.Value, v.Low = f64(pt.Value), f64(pt.Lo)
		window := prior[max(0, len(prior)-o.Window):]
		prior = append(prior, k)
		v.Window = len(window)
		var usable []int
		for _, i := range window {
			if isBounded(pts[i]) {
				usable = append(usable, i)
			}
		}
		switch {
		case len(window) < MinBaseline:
			v.Status = NoBaseline
			v.Reason = fmt.Sprintf("%d earlier runs, %d needed", len(window), MinBaseline)
		case !isBounded(pt):
			v.Status = Inconclusive
			v.Needed = int(neededSamples(n/100, s.Runs[k].Record.Confidence, minSamplesOf(s, metric, n, k), pt.Count))
			v.Reason = fmt.Sprintf("too few samples to bound %s (%d; %d needed)", l.Stat.Label(), pt.Count, v.Needed)
		case len(usable) < MinBaseline:
			v.Status = Inconclusive
			v.Reason = fmt.Sprintf("only %d of the %d window runs have enough samples to bound %s (%d needed)",
				len(usable), len(window), l.Stat.Label(), MinBaseline)
		default:
			testRun(&v, pts, usable, k, step, l, o)
		}
		out = append(out, v)
	}
	return out
}

// testRun decides a run with a usable window: the step test, then the creep
// test.
func testRun(v *Verdict, pts []Point, usable []int, k int, step []bool, l compare.RegressionLimit, o Options) {
	pt := pts[k]
	alpha := 1 - o.Level
	pooled := pts[usable[0]].Hi
	yw := make([]float64, 0, len(usable)+1)
	for _, i := range usable {
		pooled = max(pooled, pts[i].Hi)
		yw = append(yw, pts[i].Value)
	}
	yk := append(slices.Clone(yw), pt.Value)
	mk := MannKendallTest(yk)
	ts := TheilSenFit(yk)
	v.TrendP = f64(mk.PUp)
	if base := ts.At(0); base > 0 {
		v.Slope = f64(ts.Slope / base)
	}
	v.Status = OK
	if thr := threshold(l, pooled); pt.Lo > thr {
		v.Status, v.Kind = Regression, Step
		v.Reference, v.Threshold = f64(pooled), f64(thr)
		if followsTrend(yw, pt.Value, l, alpha) {
			v.Kind = Creep
		}
		step[k] = v.Kind == Step
		v.Reason = fmt.Sprintf("%s lower bound %.4g is above the window's pooled upper bound %.4g with %s (%.4g)",
			l.Stat.Label(), pt.Lo, pooled, l.String(), thr)
		return
	}
	oldest := pts[usable[0]].Hi
	thr := threshold(l, oldest)
	v.Reference, v.Threshold = f64(oldest), f64(thr)
	stepInWindow := slices.ContainsFunc(usable, func(i int) bool { return step[i] })
	if len(usable) >= MinCreepWindow && !stepInWindow && mk.PUp < alpha && ts.Slope > 0 && pt.Lo > thr {
		v.Status, v.Kind = Regression, Creep
		v.Reason = fmt.Sprintf("%s rose steadily over %d runs (Mann–Kendall p=%.3g, %s a run): lower bound %.4g above the oldest window run's upper bound %.4g with %s (%.4g)",
			l.Stat.Label(), len(yk), mk.PUp, pctText(*orZero(v.Slope)), pt.Lo, oldest, l.String(), thr)
		return
	}
	v.Reason = fmt.Sprintf("%s lower bound %.4g is not above %.4g", l.Stat.Label(), pt.Lo, threshold(l, pooled))
}

// followsTrend reports whether the window rises significantly and its
// Theil–Sen line predicts the run's value within the limit: a creep that
// crossed the limit, not a step.
func followsTrend(yw []float64, y float64, l compare.RegressionLimit, alpha float64) bool {
	if len(yw) < MinCreepWindow {
		return false
	}
	if MannKendallTest(yw).PUp >= alpha {
		return false
	}
	ts := TheilSenFit(yw)
	return ts.Slope > 0 && y <= threshold(l, ts.At(float64(len(yw))))
}

// neededSamples is the sample count that would decide a run whose
// percentile (the quantile q) is not bounded with have samples
// (result.SamplesToDecide): a run is decided once its interval at the
// confidence level is closed on both sides (stats.IntervalClosed) and it has
// the minSamples that put two samples above the percentile.
func neededSamples(q, confidence float64, minSamples int, have int64) int64 {
	return result.SamplesToDecide(have, func(n int64) bool {
		return n >= int64(minSamples) && stats.IntervalClosed(int(n), q, confidence)
	})
}

// minSamplesOf is the count a run needs for two samples above the
// percentile, as its record says.
func minSamplesOf(s *Series, metric string, n float64, k int) int {
	if t := s.Runs[k].Group.Trend(metric); t != nil {
		if p := t.Percentile(n); p != nil {
			return p.MinSamples
		}
	}
	return 0
}

func orZero(p *float64) *float64 {
	if p == nil {
		z := 0.0
		return &z
	}
	return p
}
