package result

import (
	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// judgeLimit gives a regression limit its verdict by Decide's rule on the
// interval of the worsening (the change where higher is worse): broken
// (Fail) when the whole interval is beyond the limit, Pass when none of it
// is, else Inconclusive, as is a limit that could not be tested. n is the
// smaller side's sample count; worseLo and worseHi bound the worsening.
func judgeLimit(lr *LimitResult, n int64, worseLo, worseHi float64) {
	if lr.Untested != "" {
		lr.Verdict, lr.Reason = Inconclusive, "inconclusive: not tested: "+lr.Untested
		if st, err := compare.ParseStat(lr.Stat); err == nil && st != compare.RateStat && n < int64(st.MinN()) {
			lr.NeededSamples = int64(st.MinN())
		}
		return
	}
	e := thresholds.Expr{Op: "<=", Limit: lr.Rule.Max}
	lr.Verdict = Decide(e, worseLo, worseHi)
	lr.Broken = lr.Verdict == Fail
	if lr.Verdict != Inconclusive {
		return
	}
	// An interval's width shrinks as 1/√n: n·(half-width/distance)² samples
	// per run would put the limit outside it, if the runs stay as observed.
	half, dist := (worseHi-worseLo)/2, math.Abs((worseLo+worseHi)/2-lr.Rule.Max)
	if dist > 0 && !math.IsInf(half, 0) {
		lr.NeededSamples = int64(math.Ceil(float64(n) * (half / dist) * (half / dist)))
	}
	lr.Reason = fmt.Sprintf("inconclusive: the interval of the change straddles the limit %s", lr.Rule)
	if lr.NeededSamples > 0 {
		lr.Reason += fmt.Sprintf("; about %d samples per run would decide it if the runs stay as observed (have %d)", lr.NeededSamples, n)
	}
}

// closeGates counts the limits that are inconclusive and sets OK: no limit
// broken, and none inconclusive unless allowed.
func (rep *Comparison) closeGates(allow bool) {
	rep.AllowInconclusive = allow
	rep.OK = true
	for _, l := range rep.Limits {
		switch l.Verdict {
		case Fail:
			rep.OK = false
		case Inconclusive:
			rep.Inconclusive++
		}
	}
	if rep.Inconclusive > 0 && !allow {
		rep.OK = false
	}
}
