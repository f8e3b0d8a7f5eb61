package helper

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// The instrument's own health: how late the client path itself is. A canary
// goroutine sleeps CanaryInterval again and again and measures how much later
// than asked it wakes up (scheduler and CPU saturation of the machine running
// k6 and the helper); the helper also counts ITL gaps of exactly zero (events
// completed by one socket read, the symptom users see). Each answer carries
// the worst lateness seen while its stream ran (client_lag_ms) and its zero
// gaps; GET /v1/health and Handler.Health summarise the run.

// CanaryInterval is how long the canary sleeps between measurements.
const CanaryInterval = 2 * time.Millisecond

// canaryRing is how many recent canary samples are kept for the answers'
// client_lag_ms (16 s at CanaryInterval; a longer stream reports the worst of
// its last 16 s).
const canaryRing = 8192

// canary measures scheduling lateness. tick is called by one goroutine only
// (run); mark, maxSince and wake may be called by any. While no stream runs,
// run sleeps until wake: an idle helper costs no CPU.
type canary struct {
	interval time.Duration
	now      func() time.Time
	sleep    func(time.Duration)
	busy     func() bool   // streams are running: samples then count in lag
	woken    chan struct{} // a stream started (buffered: a wake is never lost)

	ticks atomic.Int64
	ring  [canaryRing]atomic.Int64 // lateness (ns) of tick i at i % canaryRing
}

func newCanary(busy func() bool) *canary {
	return &canary{interval: CanaryInterval, now: time.Now, sleep: time.Sleep, busy: busy, woken: make(chan struct{}, 1)}
}

// wake tells an idle canary that a stream started.
func (c *canary) wake() {
	select {
	case c.woken <- struct{}{}:
	default:
	}
}

// tick sleeps one interval and records how late it woke up.
func (c *canary) tick() {
	start := c.now()
	c.sleep(c.interval)
	late := max(c.now().Sub(start)-c.interval, 0)
	n := c.ticks.Load()
	c.ring[n%canaryRing].Store(int64(late))
	c.ticks.Store(n + 1)
}

// run ticks while streams run, and waits for wake while none does, until
// stop is closed.
func (c *canary) run(stop <-chan struct{}) {
	for {
		if !c.busy() {
			select {
			case <-stop:
				return
			case <-c.woken:
			}
		}
		select {
		case <-stop:
			return
		default:
			c.tick()
		}
	}
}

// mark is the position to pass to maxSince when a stream starts.
func (c *canary) mark() int64 { return c.ticks.Load() }

// maxSince is the largest lateness of the ticks completed since mark (of the
// latest tick when none completed since); false when the canary never ticked.
func (c *canary) maxSince(mark int64) (time.Duration, bool) {
	n := c.ticks.Load()
	if n == 0 {
		return 0, false
	}
	from := min(mark, n-1)
	from = max(from, n-(canaryRing-1))
	var m int64
	for i := from; i < n; i++ {
		m = max(m, c.ring[i%canaryRing].Load())
	}
	return time.Duration(m), true
}

// lagValues are the llm_client_lag values of the answered requests (warm-up
// ones left out): the same samples k6 gets, so that the helper's lag figure
// and analyze's are one statistic of one set of samples.
type lagValues struct {
	mu     sync.Mutex
	values []float64 // ms, as the answers carry them
	over   int64     // values not kept beyond maxLagValues
}

// maxLagValues bounds the memory of lagValues (80 MB); a longer run's figure
// is over its first maxLagValues requests, and Health says so.
const maxLagValues = 10_000_000

func (l *lagValues) add(ms float64) {
	l.mu.Lock()
	if len(l.values) < maxLagValues {
		l.values = append(l.values, ms)
	} else {
		l.over++
	}
	l.mu.Unlock()
}

// sorted is a sorted copy of the values.
func (l *lagValues) sorted() ([]float64, int64) {
	l.mu.Lock()
	out := slices.Clone(l.values)
	over := l.over
	l.mu.Unlock()
	slices.Sort(out)
	return out, over
}

// Health is the helper's summary of its own timing health (GET /v1/health).
// Durations are milliseconds; null when nothing was measured.
type Health struct {
	CanaryIntervalMS float64 `json:"canary_interval_ms"`
	CanaryTicks      int64   `json:"canary_ticks"` // how often the canary woke up
	// LagSamples is the number of llm_client_lag samples (one per answered
	// request, warm-up left out); the figures are k6's p(N) of them, as
	// analyze computes them from k6's output of the same run.
	LagSamples   int64    `json:"lag_samples"`
	LagNotKept   int64    `json:"lag_not_kept,omitempty"` // samples beyond the helper's bound, not in the figures
	LagP50MS     *float64 `json:"lag_p50_ms"`
	LagP99MS     *float64 `json:"lag_p99_ms"`
	LagMaxMS     *float64 `json:"lag_max_ms"`
	ITLGaps      int64    `json:"itl_gaps"`
	ITLZeroGaps  int64    `json:"itl_zero_gaps"`
	ITLZeroShare *float64 `json:"itl_zero_share"`
	ITLP50MS     *float64 `json:"itl_p50_ms"`
	// Limited is loadgen.Judge's verdict on the lag and the ITL p50: the
	// measurements are then limited by the load generator. Reason says which
	// bound and by how much, or why there is no verdict.
	Limited bool   `json:"limited"`
	Reason  string `json:"reason,omitempty"`
	// SendLagSamples is the number of requests with a scheduled time
	// (open-loop load: the module's replay() and arrivals()); the figures are
	// k6's p(N) of their send lag, start − scheduled time, in ms.
	SendLagSamples int64    `json:"send_lag_samples,omitempty"`
	SendLagP50MS   *float64 `json:"send_lag_p50_ms,omitempty"`
	SendLagP99MS   *float64 `json:"send_lag_p99_ms,omitempty"`
	SendLagMaxMS   *float64 `json:"send_lag_max_ms,omitempty"`
	// Degraded is loadgen.JudgeSendLag's verdict: the open-loop load was
	// sent late; DegradedReason says which bound was passed.
	Degraded       bool   `json:"degraded,omitempty"`
	DegradedReason string `json:"degraded_reason,omitempty"`
}

// Health summarises the client lag and the ITL gaps seen so far.
func (h *Handler) Health() Health {
	out := Health{CanaryIntervalMS: msFloat(CanaryInterval), CanaryTicks: h.canary.ticks.Load(),
		ITLGaps: h.itl.Count(), ITLZeroGaps: h.itl.Zeros()}
	if out.ITLGaps > 0 {
		share := float64(out.ITLZeroGaps) / float64(out.ITLGaps)
		out.ITLZeroShare = &share
	}
	itlP50, hasITL := h.itl.Quantile(0.5)
	if hasITL {
		out.ITLP50MS = msPtr(itlP50)
	}
	h.sendLag(&out)
	lags, over := h.lags.sorted()
	out.LagSamples, out.LagNotKept = int64(len(lags)), over
	if len(lags) == 0 {
		return out
	}
	p50, _ := stats.Percentile(lags, 50)
	p99, _ := stats.Percentile(lags, 99)
	out.LagP50MS, out.LagP99MS, out.LagMaxMS = ptr(p50), ptr(p99), ptr(lags[len(lags)-1])
	itl := 0.0
	if hasITL {
		itl = msFloat(itlP50)
	}
	out.Limited, out.Reason = headroom.Judge(p99, itl, len(lags))
	return out
}

// sendLag fills the send lag figures and the degraded-replay verdict.
func (h *Handler) sendLag(out *Health) {
	lags, _ := h.sends.sorted()
	out.SendLagSamples = int64(len(lags))
	if len(lags) == 0 {
		return
	}
	p50, _ := stats.Percentile(lags, 50)
	p99, _ := stats.Percentile(lags, 99)
	out.SendLagP50MS, out.SendLagP99MS, out.SendLagMaxMS = ptr(p50), ptr(p99), ptr(lags[len(lags)-1])
	out.Degraded, out.DegradedReason = headroom.JudgeSendLag(p50, p99, len(lags))
}

func ptr(v float64) *float64 { return &v }

func msFloat(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
}

func msPtr(d time.Duration) *float64 { v := msFloat(d); return &v }
