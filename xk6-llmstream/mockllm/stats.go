package mockllm

import (
	"sync/atomic"
	"time"

	hist "github.com/llmstream/xk6-llmstream/internal/histogram"
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

// LatencySummary is a distribution summary. Quantiles come from the k6
// side's one log-linear histogram (internal/histogram), whose buckets are at
// most 1/32 (3.1%) wide; each is the upper bound of its bucket (the nearest
// rank's), never above Max.
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

// histogram is the mock's histogram of nanosecond values: the one
// histogram of the k6 side (internal/histogram; 32 buckets per power of two).
type histogram struct{ hist.Histogram }

// add counts v nanoseconds (a negative v counts as 0).
func (h *histogram) add(v int64) { h.Add(time.Duration(v)) }

// summary is the distribution as /stats reports it, from one snapshot.
func (h *histogram) summary() LatencySummary {
	n, q := h.Quantiles(0.50, 0.90, 0.99, 0.999)
	s := LatencySummary{Count: n, Max: h.Max()}
	if n > 0 {
		s.P50, s.P90, s.P99, s.P999 = q[0], q[1], q[2], q[3]
	}
	return s
}
