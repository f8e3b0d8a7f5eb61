package stats

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultConfidence is the confidence level of the intervals analyze reports.
const DefaultConfidence = 0.95

// Interval is a distribution-free confidence interval for a quantile: two order
// statistics [X(LoRank), X(HiRank)] (1-based ranks of the sorted sample).
//
// It rests only on the samples being independent draws from one continuous
// distribution: the number B of samples below the true quantile q is then
// Binomial(n, q), and P(X(l) ≤ ξ_q ≤ X(u)) = P(l ≤ B ≤ u−1). The ranks are the
// tightest equal-tailed pair with P(B < l) ≤ α/2 and P(B ≥ u) ≤ α/2, from the
// exact binomial CDF (gonum's distuv.Binomial, i.e. the regularised incomplete
// beta function) for every n: no normal approximation is used.
//
// When the sample is too small for one side (the quantile is too close to 0 or
// 1 for n samples), that side is unbounded: LoRank is 0 and Lo is −Inf, or
// HiRank is n+1 and Hi is +Inf.
type Interval struct {
	Lo, Hi         float64
	LoRank, HiRank int
	// Coverage is the exact probability that the interval covers the true
	// quantile: at least the confidence asked for (discreteness makes it larger).
	Coverage float64
}

// Bounded reports whether both ends are sample values.
func (iv Interval) Bounded() bool { return !math.IsInf(iv.Lo, 0) && !math.IsInf(iv.Hi, 0) }

// IntervalRanks returns the 1-based ranks of the order statistics that bound a
// confidence interval for the quantile q (0 ≤ q ≤ 1) of n samples, and its exact
// coverage. lo is 0 when there is no lower bound, hi is n+1 when there is no
// upper bound. confidence is e.g. 0.95.
func IntervalRanks(n int, q, confidence float64) (lo, hi int, coverage float64) {
	if n <= 0 {
		return 0, 1, 1
	}
	alpha := 1 - confidence
	q = math.Min(math.Max(q, 0), 1)
	b := distuv.Binomial{N: float64(n), P: q}
	cdf := func(k int) float64 { // P(B ≤ k)
		switch {
		case k < 0:
			return 0
		case k >= n:
			return 1
		case q == 0:
			return 1
		case q == 1:
			return 0
		}
		return b.CDF(float64(k))
	}
	// lo = the smallest k with P(B ≤ k) > α/2, so that P(B ≤ lo−1) ≤ α/2.
	lo = sort.Search(n+1, func(k int) bool { return cdf(k) > alpha/2 })
	// hi = 1 + the smallest m with P(B ≤ m) ≥ 1 − α/2, so that P(B ≥ hi) ≤ α/2.
	hi = 1 + sort.Search(n+1, func(m int) bool { return cdf(m) >= 1-alpha/2 })
	hi = min(hi, n+1)
	coverage = cdf(hi-1) - cdf(lo-1)
	return lo, hi, coverage
}

// QuantileInterval returns the confidence interval for the quantile q (0 ≤ q ≤ 1)
// of the sorted sample; see Interval.
func QuantileInterval(sorted []float64, q, confidence float64) Interval {
	n := len(sorted)
	lo, hi, cov := IntervalRanks(n, q, confidence)
	iv := Interval{LoRank: lo, HiRank: hi, Coverage: cov, Lo: math.Inf(-1), Hi: math.Inf(1)}
	if lo >= 1 {
		iv.Lo = sorted[lo-1]
	}
	if hi <= n {
		iv.Hi = sorted[hi-1]
	}
	return iv
}

// ClosedIntervalN is the smallest sample size for which the confidence
// interval of the quantile q (0 < q < 1) is closed: both order statistics
// exist. The lower end needs P(B = 0) = (1−q)^n ≤ α/2, the upper end
// P(B = n) = q^n ≤ α/2 (α = 1 − confidence; IntervalRanks' rule). p(99) at
// 95% needs 368 samples, the median 6. It is 0 for q outside (0, 1), which
// no sample size bounds on both sides.
func ClosedIntervalN(q, confidence float64) int {
	if !(q > 0 && q < 1) || !(confidence > 0 && confidence < 1) {
		return 0
	}
	half := (1 - confidence) / 2
	n := int(math.Ceil(max(math.Log(half)/math.Log1p(-q), math.Log(half)/math.Log(q))))
	// The logarithms may be one off at the boundary: settle it on the ranks.
	for n > 1 && IntervalClosed(n-1, q, confidence) {
		n--
	}
	for !IntervalClosed(n, q, confidence) {
		n++
	}
	return n
}

// IntervalClosed reports whether the confidence interval of the quantile q
// of n samples is closed: both its order statistics exist (IntervalRanks).
func IntervalClosed(n int, q, confidence float64) bool {
	lo, hi, _ := IntervalRanks(n, q, confidence)
	return lo >= 1 && hi <= n
}
