package sweep

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/analyze/check"
	"github.com/llmstream/xk6-llmstream/analyze/compare"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/result"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
)

// Verdict is the outcome of a limit or a level.
type Verdict string

// The verdicts. A level's verdict is the worst of its limits', and Saturated
// when it was over-saturated whatever the limits say.
const (
	Pass         Verdict = "pass"         // every limit holds with confidence
	Inconclusive Verdict = "inconclusive" // an interval straddles a limit
	Fail         Verdict = "fail"         // a limit is broken with confidence, or has no data
	Saturated    Verdict = "saturated"    // the level is past the server's capacity
)

// rank orders verdicts from best to worst.
func (v Verdict) rank() int {
	switch v {
	case Pass:
		return 0
	case Inconclusive:
		return 1
	case Fail:
		return 2
	}
	return 3
}

// Limit is one SLO limit judged on one level.
type Limit struct {
	Check    string   `json:"check"`
	Count    int64    `json:"count"`
	Observed *float64 `json:"observed"`
	// CILo and CIHi bound the aggregate at the sweep's confidence (null:
	// unbounded on that side, or no interval for this aggregate).
	CILo    *float64 `json:"ci_lo"`
	CIHi    *float64 `json:"ci_hi"`
	Verdict Verdict  `json:"verdict"`
	Reason  string   `json:"reason,omitempty"`
}

// judge evaluates one check on its data with confidence: a percentile (or
// med) by its order-statistic interval, a Rate by its Wilson interval. Other
// aggregates (avg, min, max, count, a Counter's rate, a Gauge's value) have no
// interval here and are judged on their value, which Reason says. A check
// without data fails: a level that cannot show it meets the SLO does not pass.
func judge(c check.Check, d check.Data, confidence float64) Limit {
	l := Limit{Check: c.Source, Count: d.Count}
	res := c.Evaluate(d)
	if !res.Defined {
		l.Verdict, l.Reason = Fail, res.Reason
		return l
	}
	l.Observed = num(res.Observed)
	lo, hi, what := math.NaN(), math.NaN(), ""
	switch a := c.Expr.Aggregate; {
	case a.Kind == check.Percentile || a.Kind == check.Med:
		p := a.P
		if a.Kind == check.Med {
			p = 50
		}
		iv := stats.QuantileInterval(d.Sorted, p/100, confidence)
		lo, hi, what = iv.Lo, iv.Hi, fmt.Sprintf("%s's %g%% interval", a, confidence*100)
	case a.Kind == check.RateOf && d.Type == k6json.Rate:
		lo, hi = compare.WilsonInterval(compare.Proportion{NonZero: d.NonZero, Count: d.Count}, confidence)
		what = fmt.Sprintf("the rate's %g%% Wilson interval", confidence*100)
	}
	if math.IsNaN(lo) {
		l.Verdict = Fail
		if res.Passed {
			l.Verdict = Pass
		}
		l.Reason = "judged on the value: " + c.Expr.Aggregate.String() + " has no interval"
		return l
	}
	l.CILo, l.CIHi = num(lo), num(hi)
	l.Verdict = side(c.Expr, lo, hi)
	if l.Verdict == Inconclusive {
		l.Reason = fmt.Sprintf("%s [%s, %s] straddles the limit %g: more samples per level (a longer --level-duration) can decide it",
			what, fmtNum(lo), fmtNum(hi), c.Expr.Limit)
	}
	return l
}

// side decides a limit from an interval [lo, hi] of the aggregate: Pass when
// every value in it meets the limit, Fail when none does, else Inconclusive.
// == and != are judged on both ends.
func side(e check.Expr, lo, hi float64) Verdict {
	loOK, hiOK := result.HoldsValue(e, lo), result.HoldsValue(e, hi)
	switch {
	case loOK && hiOK && (e.Op != "!=" || !(lo < e.Limit && e.Limit < hi)):
		return Pass
	case !loOK && !hiOK && (e.Op != "==" && e.Op != "===" || lo == hi):
		return Fail
	}
	return Inconclusive
}

// num is a JSON number, or null for NaN and infinities.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// fmtNum formats a bound for a sentence: 4 significant digits, ±∞.
func fmtNum(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+∞"
	case math.IsInf(v, -1):
		return "−∞"
	}
	return fmt.Sprintf("%.4g", v)
}
