package sweep

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// Plan chooses the levels of a sweep, one at a time, from the levels run so
// far.
type Plan interface {
	// Next returns the next level to run, or ok false and why the sweep
	// ends.
	Next(done []Level) (level float64, ok bool, why string)
	// Left estimates how many more levels will run, for progress.
	Left(done []Level) int
}

// Fixed runs a list of increasing levels and stops climbing at the first
// over-saturated one.
type Fixed struct {
	Levels []float64
}

// Next implements Plan.
func (f Fixed) Next(done []Level) (float64, bool, string) {
	if n := len(done); n > 0 && done[n-1].Verdict == result.Saturated {
		return 0, false, fmt.Sprintf("stopped climbing: level %s is over-saturated", FormatLevel(done[n-1].Offered))
	}
	if len(done) >= len(f.Levels) {
		return 0, false, "every level ran"
	}
	return f.Levels[len(done)], true, ""
}

// Left implements Plan.
func (f Fixed) Left(done []Level) int { return max(0, len(f.Levels)-len(done)) }

// Search finds the highest passing level: from Min it doubles the level until
// one does not pass (or Max passes), then bisects between the highest passing
// level and the lowest one that did not pass until they are within
// Resolution (a share of the passing level) of each other, running at most
// Budget levels in all. An inconclusive or over-saturated level counts as not
// passing.
type Search struct {
	Mode       Mode
	Min, Max   float64
	Resolution float64
	Budget     int
}

// Validate reports a search that cannot run.
func (s Search) Validate() error {
	switch {
	case !(s.Min > 0):
		return fmt.Errorf("--min %v: want a positive level", s.Min)
	case !(s.Max >= s.Min):
		return fmt.Errorf("--max %v is below --min %v", s.Max, s.Min)
	case !(s.Resolution > 0 && s.Resolution < 1):
		return fmt.Errorf("--resolution %v: want a share between 0 and 1", s.Resolution)
	case s.Budget < 1:
		return fmt.Errorf("--budget %d: want at least 1 level", s.Budget)
	}
	return nil
}

// Next implements Plan.
func (s Search) Next(done []Level) (float64, bool, string) {
	if len(done) >= s.Budget {
		return 0, false, fmt.Sprintf("the budget of %d levels is spent", s.Budget)
	}
	if len(done) == 0 {
		return s.Mode.Round(s.Min), true, ""
	}
	lo, hi := bounds(done)
	switch {
	case math.IsNaN(hi) && lo >= s.Max:
		return 0, false, fmt.Sprintf("the highest level, --max %s, passed: the capacity is above it", FormatLevel(s.Max))
	case math.IsNaN(hi):
		return s.Mode.Round(math.Min(2*lo, s.Max)), true, ""
	case math.IsNaN(lo):
		return 0, false, lowestFailed(done, hi)
	case hi-lo <= s.Resolution*lo:
		return 0, false, fmt.Sprintf("resolution reached: %s passed, %s did not", FormatLevel(lo), FormatLevel(hi))
	}
	mid := s.Mode.Round((lo + hi) / 2)
	if mid <= lo || mid >= hi {
		return 0, false, fmt.Sprintf("resolution reached: %s passed, %s did not, no level between", FormatLevel(lo), FormatLevel(hi))
	}
	return mid, true, ""
}

// Left implements Plan: doublings still to come and the bisection steps to the
// resolution, within the budget.
func (s Search) Left(done []Level) int {
	if len(done) == 0 {
		return min(s.Budget, 1+int(math.Ceil(math.Log2(s.Max/s.Min)))+bisections(1, s.Resolution))
	}
	lo, hi := bounds(done)
	n := 0
	switch {
	case math.IsNaN(lo):
	case math.IsNaN(hi):
		if lo < s.Max {
			n = int(math.Ceil(math.Log2(s.Max/lo))) + bisections(1, s.Resolution)
		}
	default:
		n = bisections((hi-lo)/lo, s.Resolution)
	}
	return max(0, min(n, s.Budget-len(done)))
}

// bisections is how many halvings bring a gap (a share of the level) within
// the resolution.
func bisections(gap, res float64) int {
	if gap <= res {
		return 0
	}
	return int(math.Ceil(math.Log2(gap / res)))
}

// bounds returns the lowest offered level that did not pass (NaN: none) and
// the highest passing level below it (NaN: none).
func bounds(done []Level) (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	for _, l := range done {
		if !l.Pass && (math.IsNaN(hi) || l.Offered < hi) {
			hi = l.Offered
		}
	}
	for _, l := range done {
		if l.Pass && (math.IsNaN(hi) || l.Offered < hi) && (math.IsNaN(lo) || l.Offered > lo) {
			lo = l.Offered
		}
	}
	return lo, hi
}

// MaxPassing is the highest passing level below the lowest one that did not
// pass: a pass above a failure is not trusted. NaN when none passed.
func MaxPassing(done []Level) float64 {
	lo, _ := bounds(done)
	return lo
}

// lowestFailed says why a search ends when its lowest level did not pass.
func lowestFailed(done []Level, lowest float64) string {
	for _, l := range done {
		if l.Offered == lowest && l.Verdict == result.Inconclusive {
			return fmt.Sprintf("the lowest level, %s, was inconclusive: give each level more requests (a longer --level-duration) or lower --confidence", FormatLevel(lowest))
		}
	}
	return fmt.Sprintf("the lowest level, %s, did not pass: lower --min", FormatLevel(lowest))
}
