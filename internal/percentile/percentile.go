// Package percentile is k6's p(N) rule, shared by the k6 stand-in's
// thresholds and the benchmarks' summaries: the samples sorted, and linear
// interpolation at rank N/100·(n−1), with the same floating-point operations as
// k6's Trend sink.
package percentile

import "math"

// Value is a sample type: k6's float64 milliseconds, or a Go duration.
type Value interface {
	~float64 | ~int64
}

// K6 returns the p-th percentile (p in 0..100) of sorted values as k6's
// p(p) threshold and summary compute it. It returns 0 for no values.
func K6[T Value](sorted []T, p float64) T {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := p / 100 * float64(n-1)
	lo := int(math.Floor(rank))
	if lo >= n-1 {
		return sorted[n-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	frac := rank - float64(lo)
	return sorted[lo] + T(frac*float64(sorted[lo+1]-sorted[lo]))
}
