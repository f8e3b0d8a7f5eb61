package sweep

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/analyze/check"
	"github.com/llmstream/xk6-llmstream/analyze/result"
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

// judge evaluates one check on its data with analyze's one rule (result.Judge): a percentile (or
// med) by its order-statistic interval, a Rate by its Wilson interval. Other
// aggregates (avg, min, max, count, a Counter's rate, a Gauge's value) have no
// interval here and are judged on their value, which Reason says. A check
// without data fails: a level that cannot show it meets the SLO does not pass.
func judge(c check.Check, d check.Data, confidence float64) Limit {
	l := Limit{Check: c.Source, Count: d.Count}
	if res := c.Evaluate(d); res.Defined {
		l.Observed = num(res.Observed)
	}
	j := result.Judge(c, d, confidence)
	l.Verdict, l.Reason = Verdict(j.Verdict), j.Reason
	if !math.IsNaN(j.Lo) {
		l.CILo, l.CIHi = num(j.Lo), num(j.Hi)
	}
	if l.Verdict == Inconclusive {
		l.Reason += ": more samples per level (a longer --level-duration) can decide it"
	}
	return l
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
