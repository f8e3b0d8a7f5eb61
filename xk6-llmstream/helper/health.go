package helper

import (
	"encoding/binary"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// The instrument's own health: how late the client path itself is. A canary
// sends itself a probe over a loopback TCP connection every CanaryInterval:
// the probe holds its write time, and the canary's reader — blocked in a
// socket read as every stream reader is — takes the time its read returns,
// once per read, exactly as the stream reader stamps events. Read time minus
// write time is what the machine (its scheduler, its CPUs, the helper's own
// runtime) adds to every event a stream reads, the quantity calibrate measures
// against the mock's ground truth; a timer's lateness is not (an idle Go
// runtime wakes timers on a millisecond poll, and a machine saturated by other
// processes delays timer wake-ups far more than socket reads:
// docs/calibrate.md). The helper also counts ITL gaps of exactly zero (events
// completed by one socket read, the symptom users see). Each answer carries
// the p99 of the probe lags seen while its stream ran (client_lag_ms) and its zero
// gaps; GET /v1/health and Handler.Health summarise the run.

// CanaryInterval is how often the canary sends a probe while streams run.
const CanaryInterval = 2 * time.Millisecond

// canaryRing is how many recent probe lags are kept for the answers'
// client_lag_ms (16 s at CanaryInterval; a longer stream reports the worst of
// its last 16 s).
const canaryRing = 8192

// canary measures the read lag of probes it sends itself. run writes the
// probes; one reader goroutine records each probe's lag (record is called by
// it only); mark, lagSince and wake may be called by any. While no stream
// runs, run waits for wake: an idle helper costs no CPU.
type canary struct {
	interval time.Duration
	now      func() time.Time // the read time of a probe (tests add a delay)
	sleep    func(time.Duration)
	busy     func() bool   // streams are running: probes are then sent
	woken    chan struct{} // a stream started (buffered: a wake is never lost)
	// open returns the probes' connection: what is written to w is read
	// from r. A loopback TCP connection (loopbackPair) by default.
	open func() (r io.ReadCloser, w io.WriteCloser, err error)
	base time.Time // probes hold their write time as the offset from base

	ticks atomic.Int64
	ring  [canaryRing]atomic.Int64 // lag (ns) of probe i at i % canaryRing
}

func newCanary(busy func() bool) *canary {
	return &canary{interval: CanaryInterval, now: time.Now, sleep: time.Sleep, busy: busy, woken: make(chan struct{}, 1),
		open: loopbackPair, base: time.Now()}
}

// loopbackPair connects two TCP sockets on 127.0.0.1.
func loopbackPair() (io.ReadCloser, io.WriteCloser, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer ln.Close()
	w, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return nil, nil, err
	}
	r, err := ln.Accept()
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return r, w, nil
}

// wake tells an idle canary that a stream started.
func (c *canary) wake() {
	select {
	case c.woken <- struct{}{}:
	default:
	}
}

// record keeps one probe's lag.
func (c *canary) record(lag time.Duration) {
	n := c.ticks.Load()
	c.ring[n%canaryRing].Store(int64(max(lag, 0)))
	c.ticks.Store(n + 1)
}

// probeSize is a probe's length: its write time, nanoseconds after base.
const probeSize = 8

// read records the lag of every probe read from r, until r fails: one clock
// reading per Read, given to every probe that read completed.
func (c *canary) read(r io.Reader) {
	buf := make([]byte, 4096)
	have := 0
	for {
		n, err := r.Read(buf[have:])
		at := c.now().Sub(c.base)
		have += n
		whole := have - have%probeSize
		for i := 0; i < whole; i += probeSize {
			c.record(at - time.Duration(binary.LittleEndian.Uint64(buf[i:])))
		}
		have = copy(buf, buf[whole:have])
		if err != nil {
			return
		}
	}
}

// run sends a probe every interval while streams run, and waits for wake
// while none does, until stop is closed. Without a connection (open failed)
// the canary records nothing.
func (c *canary) run(stop <-chan struct{}) {
	r, w, err := c.open()
	if err != nil {
		<-stop
		return
	}
	readDone := make(chan struct{})
	go func() { defer close(readDone); c.read(r) }()
	defer func() { w.Close(); r.Close(); <-readDone }()
	var probe [probeSize]byte
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
		}
		c.sleep(c.interval)
		binary.LittleEndian.PutUint64(probe[:], uint64(time.Since(c.base)))
		if _, err := w.Write(probe[:]); err != nil {
			<-stop
			return
		}
	}
}

// mark is the position to pass to lagSince when a stream starts.
func (c *canary) mark() int64 { return c.ticks.Load() }

// lagSince is k6's p(99) of the probe lags recorded since mark (of the latest
// probe when none was recorded since): an estimate of the p99 of what the
// machine added to the events the stream read while it ran, the figure
// calibrate measures against ground truth. false when no probe was ever
// recorded.
func (c *canary) lagSince(mark int64) (time.Duration, bool) {
	n := c.ticks.Load()
	if n == 0 {
		return 0, false
	}
	from := min(mark, n-1)
	from = max(from, n-(canaryRing-1))
	lags := make([]float64, 0, n-from)
	for i := from; i < n; i++ {
		lags = append(lags, float64(c.ring[i%canaryRing].Load()))
	}
	slices.Sort(lags)
	p99, _ := stats.Percentile(lags, 99)
	return time.Duration(p99), true
}

// lagValues are the llm_client_lag (or llm_client_cpu_idle) values of the
// answered requests (warm-up ones left out): the same samples k6 gets, so
// that the helper's figures and analyze's are one statistic of one set of
// samples.
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
	// CPUIdleSamples is the number of llm_client_cpu_idle samples (Linux:
	// requests longer than the CPU sampler's interval); CPUIdleP50 is k6's
	// p(50) of them, the share of the machine's CPUs idle while the median
	// request ran.
	CPUIdleSamples int64    `json:"cpu_idle_samples,omitempty"`
	CPUIdleP50     *float64 `json:"cpu_idle_p50,omitempty"`
	// Limited is headroom.Judge's verdict on the client lag's p50 and the
	// CPU idle share's: the measurements may then be limited by the load
	// generator. Reason says which bound and by how much, or why there is
	// no verdict.
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
	idles, _ := h.idles.sorted()
	out.CPUIdleSamples = int64(len(idles))
	if len(idles) > 0 {
		p50, _ := stats.Percentile(idles, 50)
		out.CPUIdleP50 = &p50
	}
	lags, over := h.lags.sorted()
	out.LagSamples, out.LagNotKept = int64(len(lags)), over
	s := headroom.Signals{Samples: len(lags), CPUIdle: out.CPUIdleP50}
	if len(lags) > 0 {
		p50, _ := stats.Percentile(lags, 50)
		p99, _ := stats.Percentile(lags, 99)
		out.LagP50MS, out.LagP99MS, out.LagMaxMS = ptr(p50), ptr(p99), ptr(lags[len(lags)-1])
		s.ClientLagP50MS = p50
	}
	out.Limited, out.Reason = headroom.Judge(s)
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
