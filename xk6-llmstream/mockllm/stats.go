package mockllm

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a Server's counters.
type Stats struct {
	// Requests counts generation requests received (any outcome).
	Requests int64
	// Streams counts SSE streams begun (status 200, text/event-stream).
	Streams int64
	// Completed counts requests answered to their normal end (faults that
	// still end normally, like a malformed event, included).
	Completed int64
	// ClientGone counts requests abandoned by their client (or cut by Close).
	ClientGone int64
	// QueueFull counts 429 answers because the queue was at its limit.
	QueueFull int64
	// Unauthorized counts 401 answers.
	Unauthorized int64
	// BadRequests counts 400 answers.
	BadRequests int64
	// Faults counts injected faults by kind (FaultHTTP429, ...).
	Faults map[Fault]int64
	// Active and Waiting are the streams holding a slot and waiting for one,
	// now, over all pools.
	Active, Waiting int64
	// Events counts SSE events written; Tokens the output tokens they carried.
	Events, Tokens int64
	// Lateness summarises every written event's lateness (write time − due
	// time): the pacing error of the mock itself.
	Lateness LatencySummary
}

// LatencySummary is a distribution summary. Quantiles come from a log-linear
// histogram whose buckets are about 3% wide; each is the upper bound of its
// bucket.
type LatencySummary struct {
	Count                    int64
	P50, P90, P99, P999, Max time.Duration
}

// counters are a Server's live statistics.
type counters struct {
	requests, streams, completed, clientGone atomic.Int64
	queueFull, unauthorized, badRequests     atomic.Int64
	events, tokens                           atomic.Int64
	faults                                   [numFaults]atomic.Int64
	lateness                                 histogram
	ttft                                     promHistogram // arrival → first token, for /metrics
}

// histogram is a concurrent log-linear histogram of non-negative nanosecond
// values: 32 linear sub-buckets per power of two.
type histogram struct {
	counts [histBuckets]atomic.Int64
	max    atomic.Int64
}

const (
	histSubBits = 5
	histSub     = 1 << histSubBits
	histBuckets = (64 - histSubBits + 1) * histSub
)

func histIndex(v int64) int {
	if v < histSub {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - histSubBits - 1 // v >> e is in [32, 64)
	return (e+1)*histSub + int(v>>e) - histSub
}

// histUpper is the largest value of bucket i.
func histUpper(i int) int64 {
	if i < histSub {
		return int64(i)
	}
	e := i/histSub - 1
	m := int64(i%histSub + histSub)
	return (m+1)<<e - 1
}

func (h *histogram) add(v int64) {
	if v < 0 {
		v = 0
	}
	h.counts[histIndex(v)].Add(1)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

func (h *histogram) summary() LatencySummary {
	var counts [histBuckets]int64
	var n int64
	for i := range counts {
		counts[i] = h.counts[i].Load()
		n += counts[i]
	}
	s := LatencySummary{Count: n, Max: time.Duration(h.max.Load())}
	if n == 0 {
		return s
	}
	q := func(p float64) time.Duration {
		rank := int64(p*float64(n) + 0.999999) // nearest rank, 1-based
		if rank < 1 {
			rank = 1
		}
		var c int64
		for i, k := range counts {
			c += k
			if c >= rank {
				u := histUpper(i)
				if u > int64(s.Max) {
					u = int64(s.Max)
				}
				return time.Duration(u)
			}
		}
		return s.Max
	}
	s.P50, s.P90, s.P99, s.P999 = q(0.50), q(0.90), q(0.99), q(0.999)
	return s
}
