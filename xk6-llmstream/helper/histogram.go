package helper

import (
	"math"
	"sync/atomic"
	"time"
)

// histogramSub is the number of buckets per doubling: a quantile read from the
// histogram is at most 2^(1/8)-1 ≈ 9% above the true value.
const histogramSub = 8

// histogramBuckets covers 1 ns to 2^46 ns (about 19 hours); bucket 0 holds
// exact zeros.
const histogramBuckets = 1 + 46*histogramSub

// histogram is a lock-free log-bucketed histogram of durations, for the
// helper's health summary (many writers, rare readers).
type histogram struct {
	counts [histogramBuckets]atomic.Int64
	total  atomic.Int64
	zeros  atomic.Int64
	max    atomic.Int64
}

func bucketOf(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	i := 1 + int(math.Log2(float64(d))*histogramSub)
	return min(i, histogramBuckets-1)
}

// bucketTop is the largest duration bucket i holds (its upper bound).
func bucketTop(i int) time.Duration {
	if i == 0 {
		return 0
	}
	return time.Duration(math.Exp2(float64(i) / histogramSub))
}

func (h *histogram) add(d time.Duration) {
	h.counts[bucketOf(d)].Add(1)
	h.total.Add(1)
	if d <= 0 {
		h.zeros.Add(1)
	}
	for {
		m := h.max.Load()
		if int64(d) <= m || h.max.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// quantile returns the upper bound of the bucket holding the q-quantile (never
// above the largest value added), and false when the histogram is empty.
func (h *histogram) quantile(q float64) (time.Duration, bool) {
	n := h.total.Load()
	if n == 0 {
		return 0, false
	}
	rank := int64(math.Ceil(q * float64(n)))
	rank = max(rank, 1)
	var cum int64
	for i := range h.counts {
		cum += h.counts[i].Load()
		if cum >= rank {
			return min(bucketTop(i), time.Duration(h.max.Load())), true
		}
	}
	return time.Duration(h.max.Load()), true
}
