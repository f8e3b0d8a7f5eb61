package sweep

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// A limit's and a level's verdict is analyze's result.Verdict: a level's is
// the worst of its limits' (result.Verdict.Rank), result.Saturated when it
// was over-saturated whatever the limits say, and result.Fail when its
// requests do not cover it (Level.Incomplete).

// worse is the worse of two verdicts.
func worse(a, b result.Verdict) result.Verdict {
	if b.Rank() > a.Rank() {
		return b
	}
	return a
}

// LimitVerdict is one SLO limit judged on one level.
type LimitVerdict struct {
	Check    string   `json:"check"`
	Count    int64    `json:"count"`
	Observed *float64 `json:"observed"`
	// CI bounds the aggregate at the sweep's confidence (null: unbounded on
	// that side, or no interval for this aggregate).
	CI      Interval       `json:"ci"`
	Verdict result.Verdict `json:"verdict"`
	Reason  string         `json:"reason,omitempty"`
}

// judge evaluates one check on its data with analyze's one rule (result.Judge): a percentile (or
// med) by its order-statistic interval, a Rate by its Wilson interval. Other
// aggregates (avg, min, max, count, a Counter's rate, a Gauge's value) have no
// interval here and are judged on their value, which Reason says. A check
// without data fails: a level that cannot show it meets the SLO does not pass.
func judge(c thresholds.Check, d thresholds.Data, confidence float64) LimitVerdict {
	l := LimitVerdict{Check: c.Source, Count: d.Count}
	if res := c.Evaluate(d); res.Defined {
		l.Observed = num(res.Observed)
	}
	j := result.Judge(c, d, confidence)
	l.Verdict, l.Reason = j.Verdict, j.Reason
	if !math.IsNaN(j.Lo) {
		l.CI = Interval{Low: num(j.Lo), High: num(j.Hi)}
	}
	if l.Verdict == result.Inconclusive {
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
