package result

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// Verdict is a gate's outcome judged with confidence.
type Verdict string

// The verdicts of a check or a regression limit. A gate that cannot be
// decided is Inconclusive, and an inconclusive gate fails unless the user
// accepts it (--allow-inconclusive).
const (
	Pass         Verdict = "pass"         // the limit holds with confidence
	Inconclusive Verdict = "inconclusive" // too few samples, or an interval that straddles the limit
	Fail         Verdict = "fail"         // the limit is broken (with confidence, or by k6's value), or no data
	// Saturated is a capacity sweep's level past the server's capacity,
	// whatever its limits say.
	Saturated Verdict = "saturated"
)

// Rank orders verdicts from best to worst: Pass, Inconclusive, Fail,
// Saturated (and anything else last).
func (v Verdict) Rank() int {
	switch v {
	case Pass:
		return 0
	case Inconclusive:
		return 1
	case Fail:
		return 2
	case Saturated:
		return 3
	}
	return 4
}

// MaxNeeded bounds the search for the sample size that would decide a gate
// (beyond any load test; the binomial CDF also loses precision far above it).
const MaxNeeded = 100_000_000

// Judgement is a check judged with confidence: the rule analyze check and
// the capacity sweep share.
type Judgement struct {
	Verdict Verdict
	// Lo and Hi bound the aggregate at the confidence level (±Inf: open on
	// that side); NaN when the aggregate has no interval here.
	Lo, Hi float64
	// Interval names the interval: "p(99)'s 95% order-statistic interval".
	Interval string
	// Needed is the sample size that would decide an inconclusive check, if
	// the distribution stays as observed; 0 when none would (the value sits
	// at the limit) or the check is decided.
	Needed int64
	// Reason says why the check is inconclusive or failed without a value,
	// or that it was judged on its value.
	Reason string
}

// Judge judges a check on its data at a confidence level. A percentile (or
// med) is judged by its distribution-free order-statistic interval
// (stats.QuantileInterval), a Rate's rate by its Wilson interval: Pass when
// every value in the interval meets the limit, Fail when none does, else
// Inconclusive — including an interval left open by too few samples. The
// other aggregates (avg, min, max, count, a Counter's rate, a Gauge's
// value) have no interval and are judged on their value, as k6 judges them;
// so are == and != (no interval shows equality: "rate==0" states a fact of
// the run). A check without data fails.
func Judge(c thresholds.Check, d thresholds.Data, confidence float64) Judgement {
	res := c.Evaluate(d)
	j := Judgement{Lo: math.NaN(), Hi: math.NaN()}
	if !res.Defined {
		j.Verdict, j.Reason = Fail, res.Reason
		return j
	}
	e := c.Expr
	var decide func(n int64) (lo, hi float64)
	switch a := e.Aggregate; {
	case e.Op == "==" || e.Op == "===" || e.Op == "!=":
		return onValue(j, res, "judged on the value: no interval shows that a value equals a limit")
	case a.Kind == thresholds.Percentile || a.Kind == thresholds.Med:
		q := quantileOf(a)
		j.Interval = fmt.Sprintf("%s's %g%% order-statistic interval", a, confidence*100)
		iv := stats.QuantileInterval(d.Sorted, q, confidence)
		j.Lo, j.Hi = iv.Lo, iv.Hi
		decide = func(n int64) (float64, float64) { return projectedInterval(d.Sorted, q, confidence, n) }
	case a.Kind == thresholds.RateOf && d.Type == k6json.Rate:
		j.Interval = fmt.Sprintf("the rate's %g%% Wilson interval", confidence*100)
		j.Lo, j.Hi = compare.WilsonInterval(compare.Proportion{NonZero: d.NonZero, Count: d.Count}, confidence)
		share := float64(d.NonZero) / float64(d.Count)
		decide = func(n int64) (float64, float64) {
			return compare.WilsonInterval(compare.Proportion{NonZero: int64(math.Round(share * float64(n))), Count: n}, confidence)
		}
	default:
		return onValue(j, res, "judged on the value: "+e.Aggregate.String()+" has no interval")
	}
	j.Verdict = Decide(e, j.Lo, j.Hi)
	if j.Verdict == Inconclusive {
		j.Needed = neededSamples(e, d.Count, decide)
		j.Reason = inconclusiveReason(j, e, d.Count)
		if a := e.Aggregate; (a.Kind == thresholds.Percentile || a.Kind == thresholds.Med) && (math.IsInf(j.Lo, 0) || math.IsInf(j.Hi, 0)) {
			j.Reason += fmt.Sprintf("; the interval of %s closes from %d samples", a, stats.ClosedIntervalN(quantileOf(a), confidence))
		}
	}
	return j
}

// onValue judges a check on its value, as k6 does.
func onValue(j Judgement, res thresholds.Result, why string) Judgement {
	j.Verdict, j.Reason = Fail, why
	if res.Passed {
		j.Verdict = Pass
	}
	return j
}

// quantileOf is the quantile (0 to 1) of a percentile or med aggregate.
func quantileOf(a thresholds.Aggregate) float64 {
	if a.Kind == thresholds.Med {
		return 0.5
	}
	return a.P / 100
}

// Decide decides a limit from an interval [lo, hi] of the aggregate: Pass
// when every value in it meets the limit, Fail when none does, else
// Inconclusive. An open end (±Inf) meets no finite limit on that side. ==
// and != are judged on both ends.
func Decide(e thresholds.Expr, lo, hi float64) Verdict {
	loOK, hiOK := e.Holds(lo), e.Holds(hi)
	switch {
	case loOK && hiOK && (e.Op != "!=" || !(lo < e.Limit && e.Limit < hi)):
		return Pass
	case !loOK && !hiOK && (e.Op != "==" && e.Op != "===" || lo == hi):
		return Fail
	}
	return Inconclusive
}

// projectedInterval is the interval of the quantile q that n samples drawn
// from the observed distribution would give: the order statistics' ranks
// for n, read at the same share of the observed sorted sample.
func projectedInterval(sorted []float64, q, confidence float64, n int64) (lo, hi float64) {
	l, h, _ := stats.IntervalRanks(int(n), q, confidence)
	at := func(rank int) float64 {
		switch {
		case rank < 1:
			return math.Inf(-1)
		case rank > int(n):
			return math.Inf(1)
		}
		i := int(math.Ceil(float64(rank)/float64(n)*float64(len(sorted)))) - 1
		return sorted[min(max(i, 0), len(sorted)-1)]
	}
	return at(l), at(h)
}

// neededSamples is the sample size at which the interval decide projects
// is decided (SamplesToDecide).
func neededSamples(e thresholds.Expr, have int64, decide func(n int64) (lo, hi float64)) int64 {
	return SamplesToDecide(have, func(n int64) bool { return Decide(e, decideLo(decide, n), decideHi(decide, n)) != Inconclusive })
}

// SamplesToDecide is the rule for "the samples that would decide it", shared
// by every gate that reports it (analyze check's and the capacity sweep's
// Judge, analyze history's alerts): the smallest sample size above have at
// which decided holds, found by doubling, then bisection; 0 when none up to
// MaxNeeded does. decided(n) is the gate's verdict on n samples from the
// distribution as observed; it must stay true from some n on (a gate gets
// easier to decide with more samples), and is taken to be false at have.
func SamplesToDecide(have int64, decided func(n int64) bool) int64 {
	lo, hi := max(have, 1), max(2*have, 2)
	for !decided(hi) {
		if hi >= MaxNeeded {
			return 0
		}
		lo, hi = hi, min(2*hi, MaxNeeded)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if decided(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func decideLo(f func(int64) (float64, float64), n int64) float64 { lo, _ := f(n); return lo }
func decideHi(f func(int64) (float64, float64), n int64) float64 { _, hi := f(n); return hi }

// inconclusiveReason says why a check is inconclusive and what would decide it.
func inconclusiveReason(j Judgement, e thresholds.Expr, have int64) string {
	iv := fmt.Sprintf("%s [%s, %s]", j.Interval, boundText(j.Lo), boundText(j.Hi))
	what := "straddles the limit " + formatLimit(e.Limit)
	if math.IsInf(j.Lo, 0) || math.IsInf(j.Hi, 0) {
		what = "is open: too few samples to bound it"
	}
	if j.Needed == 0 {
		return fmt.Sprintf("inconclusive: %s %s, and up to %d samples from the same distribution would not decide it (the value is at the limit)", iv, what, MaxNeeded)
	}
	return fmt.Sprintf("inconclusive: %s %s; about %d samples would decide it if the distribution stays as observed (have %d)", iv, what, j.Needed, have)
}

func boundText(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "−∞"
	}
	return fmt.Sprintf("%.4g", v)
}

func formatLimit(v float64) string { return fmt.Sprintf("%g", v) }
