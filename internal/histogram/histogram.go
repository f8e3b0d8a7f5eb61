// Package histogram is the one histogram of durations of the k6 side: the
// helper's timing health (GET /v1/health: canary lag, ITL gaps) and the
// mock's pacing lateness (/stats) both keep theirs in a Histogram.
//
// The buckets are log-linear: values below 32 ns have a bucket each, and
// every power of two above is cut into 32 equal buckets, so a bucket's upper
// bound is at most 1/32 (3.1 %) above any value in it. Bucket indexes come
// from integer bit lengths, with no floating-point logarithm. A Histogram is
// safe for many writers and rare readers, without locks.
package histogram

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

const (
	subBits = 5
	sub     = 1 << subBits // buckets per power of two
	// Buckets is the number of buckets: every non-negative int64 has one
	// (Index(math.MaxInt64) is the last).
	Buckets = (64 - subBits) * sub
)

// Histogram counts durations; the zero value is empty and ready to use. It
// must not be copied after first use.
type Histogram struct {
	counts [Buckets]atomic.Int64
	total  atomic.Int64
	zeros  atomic.Int64
	max    atomic.Int64
}

// Index is the bucket of a non-negative value v.
func Index(v int64) int {
	if v < sub {
		return int(max(v, 0))
	}
	e := bits.Len64(uint64(v)) - subBits - 1 // v >> e is in [32, 64)
	return (e+1)*sub + int(v>>e) - sub
}

// Upper is the largest value bucket i holds.
func Upper(i int) int64 {
	if i < sub {
		return int64(i)
	}
	e := i/sub - 1
	m := uint64(i%sub + sub)
	return int64(min((m+1)<<e-1, math.MaxInt64)) // the last bucket ends at MaxInt64
}

// Add counts d; a negative d counts as 0.
func (h *Histogram) Add(d time.Duration) {
	v := max(int64(d), 0)
	h.counts[Index(v)].Add(1)
	if v == 0 {
		h.zeros.Add(1)
	}
	h.total.Add(1) // after the bucket: a reader that sees the total sees the bucket
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

// Count is the number of values added.
func (h *Histogram) Count() int64 { return h.total.Load() }

// Zeros is the number of values added that were 0 or less.
func (h *Histogram) Zeros() int64 { return h.zeros.Load() }

// Max is the largest value added (0 when none).
func (h *Histogram) Max() time.Duration { return time.Duration(h.max.Load()) }

// Quantile is Quantiles for one q: false when the histogram is empty.
func (h *Histogram) Quantile(q float64) (time.Duration, bool) {
	n, v := h.Quantiles(q)
	if n == 0 {
		return 0, false
	}
	return v[0], true
}

// Quantiles returns, from one snapshot of the buckets, the number of values
// counted and each q-quantile (0 ≤ q ≤ 1): the upper bound of the bucket
// that holds the value of nearest rank ⌈q·n⌉ (at least 1), never above the
// largest value added. values is nil when the histogram is empty.
func (h *Histogram) Quantiles(qs ...float64) (n int64, values []time.Duration) {
	var counts [Buckets]int64
	for i := range counts {
		counts[i] = h.counts[i].Load()
		n += counts[i]
	}
	if n == 0 {
		return 0, nil
	}
	top := h.max.Load()
	values = make([]time.Duration, len(qs))
	for k, q := range qs {
		rank := NearestRank(q, n)
		var cum int64
		values[k] = time.Duration(top)
		for i, c := range counts {
			if cum += c; cum >= rank {
				values[k] = time.Duration(min(Upper(i), top))
				break
			}
		}
	}
	return n, values
}

// NearestRank is the 1-based rank ⌈q·n⌉ of the q-quantile of n values, at
// least 1 and at most n. A product within 1e-9 of a whole number is taken as
// that number, so that float64 noise (0.07·100 = 7.000000000000001) does not
// move the rank by one.
func NearestRank(q float64, n int64) int64 {
	x := q * float64(n)
	r := math.Round(x)
	if math.Abs(x-r) > 1e-9*math.Max(1, x) {
		r = math.Ceil(x)
	}
	return min(max(int64(r), 1), n)
}
