package thresholds

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Data is what a check is evaluated on: the samples of its metric or submetric.
type Data struct {
	Type k6json.Type
	// Sorted holds a Trend's values in ascending order.
	Sorted []float64
	// Count is the number of samples; NonZero those ≠ 0 (a Rate's); Sum their
	// sum (a Counter's); Last the last value read (a Gauge's).
	Count   int64
	NonZero int64
	Sum     float64
	Last    float64
	// Seconds is the time the samples cover, for a Counter's rate; 0 if unknown.
	Seconds float64
}

// Result is a check's outcome. A check with no value to compare (no samples,
// or a Counter rate over an unknown time span) fails, with Reason saying why.
type Result struct {
	Observed float64
	Defined  bool
	Passed   bool
	Reason   string
}

// Validate reports whether k6 would accept the check on a metric of type t.
func (c Check) Validate(t k6json.Type) error {
	if !c.Expr.Aggregate.Supports(t) {
		return fmt.Errorf("check %q: %s does not apply to %s, a %s (it takes %s)",
			c.Source, c.Expr.Aggregate, c.Metric, t, Supported(t))
	}
	return nil
}

// Evaluate computes the check's aggregate as k6 does and compares it with the
// limit: avg = sum/count, med = p(50), p(N) by k6's linear interpolation, a
// Rate's rate = non-zero/count, a Counter's count = sum and rate = sum/Seconds,
// a Gauge's value = the last value. Unlike k6, which passes a threshold on a
// metric without samples (or compares 0), a check without data fails.
func (c Check) Evaluate(d Data) Result {
	if d.Count == 0 {
		return Result{Reason: "no data: no samples of " + c.Name()}
	}
	var v float64
	switch a := c.Expr.Aggregate; a.Kind {
	case Avg:
		v = stats.Mean(d.Sorted)
	case Min:
		v = d.Sorted[0]
	case Max:
		v = d.Sorted[len(d.Sorted)-1]
	case Med:
		v, _ = stats.Percentile(d.Sorted, 50)
	case Percentile:
		v, _ = stats.Percentile(d.Sorted, a.P)
	case Count:
		v = d.Sum
	case RateOf:
		if d.Type == k6json.Counter {
			if d.Seconds <= 0 {
				return Result{Reason: "no data: the samples of " + c.Name() + " span no time, so it has no rate per second"}
			}
			v = d.Sum / d.Seconds
		} else {
			v = float64(d.NonZero) / float64(d.Count)
		}
	case Value:
		v = d.Last
	default:
		return Result{Reason: "unknown aggregate"}
	}
	if math.IsNaN(v) {
		return Result{Reason: "no data: the aggregate is undefined"}
	}
	return Result{Observed: v, Defined: true, Passed: c.Expr.holds(v)}
}
