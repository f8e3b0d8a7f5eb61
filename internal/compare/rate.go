package compare

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Proportion is a k6 Rate's samples: NonZero of Count were non-zero (for
// llm_requests_failed: failed requests of all requests).
type Proportion struct {
	NonZero, Count int64
}

// Rate is NonZero/Count, NaN without samples.
func (p Proportion) Rate() float64 {
	if p.Count == 0 {
		return math.NaN()
	}
	return float64(p.NonZero) / float64(p.Count)
}

// RateChange is how a Rate moved from the baseline to the candidate.
type RateChange struct {
	Base, Cand Proportion
	// Delta is Cand.Rate() − Base.Rate(), a difference of proportions (0.01
	// is one percentage point); Lo and Hi bound it at Level (Newcombe's
	// hybrid score interval).
	Delta, Lo, Hi float64
	Level         float64
	// LowerIsBetter tells which way is worse: up for a failure rate, down
	// for a success rate.
	LowerIsBetter bool
	// Verdict is Worse or Better when the interval excludes 0, else NoChange.
	Verdict Verdict
}

// CompareRates compares a Rate of two runs at a confidence level in (0, 1).
// Each run needs at least one sample. The interval of the difference is
// Newcombe's hybrid score interval (Newcombe 1998, method 10), built from the
// Wilson score interval of each rate: it keeps close to its nominal coverage
// for small counts and for rates near 0 or 1, where the Wald interval fails.
func CompareRates(base, cand Proportion, level float64, lowerIsBetter bool) (RateChange, error) {
	if !(level > 0 && level < 1) {
		return RateChange{}, fmt.Errorf("compare: confidence level %g is not in (0, 1)", level)
	}
	for _, s := range []struct {
		name string
		p    Proportion
	}{{"baseline", base}, {"candidate", cand}} {
		if s.p.Count <= 0 {
			return RateChange{}, fmt.Errorf("%w in the %s", ErrEmpty, s.name)
		}
		if s.p.NonZero < 0 || s.p.NonZero > s.p.Count {
			return RateChange{}, fmt.Errorf("compare: %s: %d non-zero samples of %d", s.name, s.p.NonZero, s.p.Count)
		}
	}
	c := RateChange{Base: base, Cand: cand, Level: level, LowerIsBetter: lowerIsBetter}
	c.Delta = cand.Rate() - base.Rate()
	c.Lo, c.Hi = NewcombeInterval(base, cand, level)
	switch {
	case c.Lo > 0 && lowerIsBetter, c.Hi < 0 && !lowerIsBetter:
		c.Verdict = Worse
	case c.Lo > 0, c.Hi < 0:
		c.Verdict = Better
	default:
		c.Verdict = NoChange
	}
	return c, nil
}

// Worsening returns the lower bound of how much worse the candidate's rate
// is, in the same unit as Delta: Lo for a rate where lower is better, −Hi
// otherwise. It is above 0 when the candidate is worse with confidence.
func (c RateChange) Worsening() float64 {
	if c.LowerIsBetter {
		return c.Lo
	}
	return -c.Hi
}

// WilsonInterval is the Wilson score interval of the proportion p at a
// confidence level: the rates r for which |p̂ − r| ≤ z·√(r(1−r)/n).
func WilsonInterval(p Proportion, level float64) (lo, hi float64) {
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	n := float64(p.Count)
	r := p.Rate()
	z2n := z * z / n
	center := (r + z2n/2) / (1 + z2n)
	half := z / (1 + z2n) * math.Sqrt(r*(1-r)/n+z2n/(4*n))
	lo, hi = max(0, center-half), min(1, center+half)
	// At 0 and n non-zero samples the bound is exactly 0 (or 1); rounding
	// must not move it.
	if p.NonZero == 0 {
		lo = 0
	}
	if p.NonZero == p.Count {
		hi = 1
	}
	return lo, hi
}

// NewcombeInterval bounds cand.Rate() − base.Rate() at a confidence level
// with Newcombe's hybrid score interval: with the Wilson intervals [l₁, u₁]
// of the candidate's rate p₁ and [l₂, u₂] of the baseline's p₂,
//
//	low  = (p₁ − p₂) − √((p₁ − l₁)² + (u₂ − p₂)²)
//	high = (p₁ − p₂) + √((u₁ − p₁)² + (p₂ − l₂)²)
func NewcombeInterval(base, cand Proportion, level float64) (lo, hi float64) {
	p1, p2 := cand.Rate(), base.Rate()
	l1, u1 := WilsonInterval(cand, level)
	l2, u2 := WilsonInterval(base, level)
	d := p1 - p2
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	return max(-1, lo), min(1, hi)
}

// RateLowerIsBetter tells which way a k6 Rate improves, from its name: a rate
// of failures or errors (llm_requests_failed, http_req_failed: a name with
// "fail" or "error") is better lower; any other (llm_slo_met, checks: the
// share of successes) is better higher.
func RateLowerIsBetter(metric string) bool {
	m := strings.ToLower(metric)
	return strings.Contains(m, "fail") || strings.Contains(m, "error")
}
