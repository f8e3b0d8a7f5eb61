package stats

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// DefaultPercentiles are the percentiles analyze reports, in percent.
var DefaultPercentiles = []float64{50, 90, 95, 99, 99.9, 99.99}

// Percentile returns k6's p(N) of sorted (ascending) values, N in percent
// (0 ≤ N ≤ 100): with p = N/100 and i = p·(n−1), the value
// x[⌊i⌋] + (x[⌈i⌉] − x[⌊i⌋])·(i − ⌊i⌋) (0-based); for n = 1, the value. ok is
// false for an empty sample, where the percentile is undefined, and for N
// outside [0, 100] or NaN.
func Percentile(sorted []float64, n float64) (v float64, ok bool) {
	if len(sorted) == 0 || !(n >= 0 && n <= 100) {
		return math.NaN(), false
	}
	if len(sorted) == 1 {
		return sorted[0], true
	}
	lo, f := Rank(len(sorted), n)
	hi := lo // ⌈i⌉
	if f > 0 {
		hi++
	}
	j, k := sorted[lo], sorted[hi]
	return j + (k-j)*f, true
}

// Rank is where k6's p(N) of count sorted values lies: the 0-based rank
// i = (N/100)·(count−1) as its whole part lo = ⌊i⌋ and its fraction i − ⌊i⌋
// (0 ≤ N ≤ 100, count ≥ 1). These are the float64 operations of k6's trend
// sink, in its order; Percentile and the bootstrap of a percentile (package
// compare) both take the rank from here.
func Rank(count int, n float64) (lo int, frac float64) {
	i := n / 100 * (float64(count) - 1.0)
	fl := math.Floor(i)
	return int(fl), i - fl
}

// NearestRank returns the nearest-rank N-th percentile of sorted values: the
// value of 1-based rank r = ⌈(N/100)·n⌉, or rank 1 for N = 0. r is computed
// exactly from the shortest decimal form of N (99.9 is 999/10), so that, e.g.,
// p(99) of 200 values is rank 198, never 199 by a rounding error. ok is false for
// an empty sample or N outside [0, 100].
func NearestRank(sorted []float64, n float64) (v float64, rank int, ok bool) {
	if len(sorted) == 0 || !(n >= 0 && n <= 100) {
		return math.NaN(), 0, false
	}
	rank = nearestRankIndex(len(sorted), n)
	return sorted[rank-1], rank, true
}

// nearestRankIndex is ⌈N·count/100⌉, at least 1, in exact rational arithmetic.
func nearestRankIndex(count int, n float64) int {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(n, 'f', -1, 64))
	if !ok {
		panic(fmt.Sprintf("stats: percentile %v has no decimal form", n))
	}
	r.Mul(r, new(big.Rat).SetInt64(int64(count)))
	r.Quo(r, big.NewRat(100, 1))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	rank := q.Int64()
	if m.Sign() > 0 {
		rank++
	}
	return int(max(rank, 1))
}

// Name is k6's name of the N-th percentile: "p(99.9)".
func Name(n float64) string { return "p(" + strconv.FormatFloat(n, 'g', -1, 64) + ")" }

// MinSamples is the number of samples below which the N-th percentile rests on
// fewer than `above` observations above it: ⌈above/(1 − N/100)⌉, computed
// exactly. With above = 2: p99 needs 200 samples, p99.9 2,000, p99.99 20,000.
// It is 0 for N = 100 (no sample size is enough) and 1 for N = 0.
func MinSamples(n float64, above int) int {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(n, 'f', -1, 64))
	if !ok || r.Cmp(big.NewRat(100, 1)) >= 0 {
		return 0
	}
	tail := new(big.Rat).Sub(big.NewRat(1, 1), r.Quo(r, big.NewRat(100, 1))) // 1 − N/100
	need := new(big.Rat).Quo(big.NewRat(int64(above), 1), tail)
	q, m := new(big.Int).QuoRem(need.Num(), need.Denom(), new(big.Int))
	v := q.Int64()
	if m.Sign() > 0 {
		v++
	}
	return int(max(v, 1))
}
