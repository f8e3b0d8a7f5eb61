package calibrate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// Report is the client's error at one load on this machine. Times are
// milliseconds.
type Report struct {
	// Requests are the successful streamed requests in the records (warm-up
	// ones included: their timings are as real); Matched those found in the
	// mock's log, whose events the figures compare.
	Requests int `json:"requests"`
	Matched  int `json:"matched"`
	// PeakStreams is the most requests in flight at once.
	PeakStreams int `json:"peak_streams"`
	// TTFTError is the helper's TTFT minus the mock's (arrival → first text
	// write): the request's way to the mock and the first text's way back.
	TTFTErrorP50 float64 `json:"ttft_error_p50_ms"`
	TTFTErrorP99 float64 `json:"ttft_error_p99_ms"`
	// Lag is read time − write time of mid-stream text events (all but the
	// first of each request): what the client path adds to every event.
	Events  int     `json:"lag_events"`
	LagP50  float64 `json:"lag_p50_ms"`
	LagP99  float64 `json:"lag_p99_ms"`
	LagP999 float64 `json:"lag_p999_ms"`
	// LagP99CI is the 95% interval of the lag's p99 (LagP99Interval: a
	// bootstrap over LagBlock stretches of write time; ±Inf ends print as
	// null: too few blocks to bound it).
	LagP99CI [2]*float64 `json:"lag_p99_ci95_ms"`
	// ITLErrorP99 is the p99 of |measured gap − written gap|.
	ITLErrorP99 float64 `json:"itl_error_p99_ms"`
	// ZeroGapShare is the share of measured ITL gaps that are 0 (events read
	// together); TrueZeroGapShare the share the mock wrote within 0 ns.
	ZeroGapShare     float64 `json:"zero_gap_share"`
	TrueZeroGapShare float64 `json:"true_zero_gap_share"`
	// ClientLagP50 and ClientLagP99 are percentiles over the requests of
	// llm_client_lag (each request's p99 of the helper's loopback-probe
	// lags); the median is the load-generator rule's statistic.
	ClientLagSamples int      `json:"client_lag_samples"`
	ClientLagP50     *float64 `json:"client_lag_p50_ms,omitempty"`
	ClientLagP99     *float64 `json:"client_lag_p99_ms,omitempty"`
	// CPUIdleP50 is the median over requests of llm_client_cpu_idle, the
	// rule's CPU statistic (CPUHeadroom is the whole run's idle share).
	CPUIdleP50 *float64 `json:"cpu_idle_p50,omitempty"`
	// RuleLimited and RuleWhy are what run's load-generator rule
	// (headroom.Judge) says of this run, from the client lag and the idle
	// CPU share alone: beside the ground truth above, they show whether the
	// rule run applies tells the truth on this machine at this load.
	RuleLimited bool   `json:"rule_limited"`
	RuleWhy     string `json:"rule_why,omitempty"`
	// CPUHeadroom is the machine's idle share of its CPUs during the run
	// (Linux; nil elsewhere).
	CPUHeadroom *float64 `json:"cpu_headroom,omitempty"`
	CPUs        int      `json:"cpus"`
	// Bottleneck is true when the machine, not the server, limits the
	// numbers; BottleneckAbove is then the fewest streams in flight at which
	// the lag went over the bound (PeakStreams when the CPU ran out first).
	Bottleneck      bool     `json:"bottleneck"`
	BottleneckAbove int      `json:"bottleneck_above_streams,omitempty"`
	Reasons         []string `json:"reasons,omitempty"`
	Verdict         string   `json:"verdict"`
}

// Limits decide the verdict.
type Limits struct {
	// MinHeadroom: less idle CPU than this share and the machine is the
	// bottleneck (its timestamps wait for a CPU).
	MinHeadroom float64
	// MaxLag: a mid-stream lag p99 above this and the machine is the
	// bottleneck; 0 is max(5 ms, ITL/4).
	MaxLag time.Duration
}

// DefaultLimits are the verdict's defaults.
var DefaultLimits = Limits{MinHeadroom: 0.10}

func (l Limits) maxLag(itl time.Duration) time.Duration {
	if l.MaxLag > 0 {
		return l.MaxLag
	}
	return max(5*time.Millisecond, itl/4)
}

// logReq is one mock log line's text events.
type logReq struct {
	arrival    int64
	firstWrite int64   // first text event's write time
	writes     []int64 // text events' write times (head only when omitted)
	omitted    bool
	used       bool
}

func textWrites(l *mockllm.RequestLog) []int64 {
	var w []int64
	for i, k := range l.EventKinds {
		if (k == "text" || k == "reasoning") && i < len(l.EventWriteNS) {
			w = append(w, l.EventWriteNS[i])
		}
	}
	return w
}

const ms = float64(time.Millisecond)

// Analyze compares the helper's records with the mock's log. headroom is the
// machine's idle CPU share during the run (nil: unknown); itl the mock's
// inter-token latency.
func Analyze(recs []records.Record, logs []mockllm.RequestLog, headroom *float64, cpus int, itl time.Duration, lim Limits) *Report {
	r := &Report{CPUHeadroom: headroom, CPUs: cpus}
	var c comparison
	c.compare(r, recs, candidates(logs))
	r.summarize(&c)
	r.applyRule(c.clientLag, c.cpuIdle)
	byLevel := r.lagByLevel(c.spans)
	r.judge(headroom, lim, lim.maxLag(itl), byLevel)
	return r
}

// candidates are the mock's successful streamed requests that wrote text,
// in the order of their first text write.
func candidates(logs []mockllm.RequestLog) []*logReq {
	var cands []*logReq
	for i := range logs {
		l := &logs[i]
		if !l.Stream || l.Outcome != "ok" {
			continue
		}
		w := textWrites(l)
		if len(w) == 0 {
			continue
		}
		cands = append(cands, &logReq{arrival: l.ArrivalNS, firstWrite: w[0], writes: w, omitted: l.EventsOmitted > 0})
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].firstWrite < cands[j].firstWrite })
	return cands
}

// comparison gathers, over the records, the errors against the mock's
// writes (ms) and the spans of the requests.
type comparison struct {
	ttftErr, lag, itlErr, clientLag, cpuIdle []float64
	lagWrite                                 []int64 // the write time of each lag's event
	gaps, zero, trueZero                     int
	spans                                    []span
}

// span is one request's time in flight and its events' lags (ms).
type span struct {
	start, end int64
	lagP       []float64
}

// compare matches each successful streamed record with its mock request and
// gathers the differences; r counts the requests and the matches.
func (c *comparison) compare(r *Report, recs []records.Record, cands []*logReq) {
	for i := range recs {
		rec := &recs[i]
		if !rec.OK() || rec.TTFTNS == nil || len(rec.TextNS) == 0 || rec.Unanswered {
			continue
		}
		r.Requests++
		if rec.ClientLagNS != nil {
			c.clientLag = append(c.clientLag, float64(*rec.ClientLagNS)/ms)
		}
		if rec.CPUIdle != nil {
			c.cpuIdle = append(c.cpuIdle, *rec.CPUIdle)
		}
		reads := make([]int64, len(rec.TextNS))
		at := rec.StartNS
		for j, g := range rec.TextNS {
			at += g
			reads[j] = at
		}
		for _, g := range rec.TextNS[1:] {
			c.gaps++
			if g == 0 {
				c.zero++
			}
		}
		sp := span{start: rec.StartNS, end: rec.StartNS + rec.E2ENS}
		if m := match(cands, reads[0], len(reads)); m != nil {
			r.Matched++
			c.ttftErr = append(c.ttftErr, float64(*rec.TTFTNS-(m.firstWrite-m.arrival))/ms)
			sp.lagP = c.events(reads, m.writes)
		}
		c.spans = append(c.spans, sp)
	}
}

// events compares a matched request's reads with the mock's writes, event
// by event after the first, and returns the lags.
func (c *comparison) events(reads, writes []int64) []float64 {
	var lags []float64
	n := min(len(reads), len(writes))
	for j := 1; j < n; j++ {
		d := float64(reads[j]-writes[j]) / ms
		c.lag = append(c.lag, d)
		c.lagWrite = append(c.lagWrite, writes[j])
		lags = append(lags, d)
		c.itlErr = append(c.itlErr, math.Abs(float64((reads[j]-reads[j-1])-(writes[j]-writes[j-1]))/ms))
		if writes[j] == writes[j-1] {
			c.trueZero++
		}
	}
	return lags
}

// summarize sets the report's percentiles and shares from the comparison.
func (r *Report) summarize(c *comparison) {
	r.Events = len(c.lag)
	r.TTFTErrorP50, r.TTFTErrorP99 = pct(c.ttftErr, 50), pct(c.ttftErr, 99)
	r.LagP50, r.LagP99, r.LagP999 = pct(c.lag, 50), pct(c.lag, 99), pct(c.lag, 99.9)
	r.ITLErrorP99 = pct(c.itlErr, 99)
	if len(c.lag) > 0 {
		lo, hi := LagP99Interval(c.lag, c.lagWrite)
		for i, v := range []float64{lo, hi} {
			if !math.IsInf(v, 0) {
				r.LagP99CI[i] = &v
			}
		}
	}
	if c.gaps > 0 {
		r.ZeroGapShare = float64(c.zero) / float64(c.gaps)
		r.TrueZeroGapShare = float64(c.trueZero) / float64(c.gaps)
	}
	r.ClientLagSamples = len(c.clientLag)
	if len(c.clientLag) > 0 {
		p50, p99 := pct(c.clientLag, 50), pct(c.clientLag, 99)
		r.ClientLagP50, r.ClientLagP99 = &p50, &p99
	}
}

// applyRule records what the load-generator rule run applies says of the
// records' llm_client_lag and llm_client_cpu_idle samples.
func (r *Report) applyRule(clientLag, cpuIdle []float64) {
	s := headroom.Signals{Samples: len(clientLag)}
	if len(clientLag) > 0 {
		s.ClientLagP50MS = pct(clientLag, 50)
	}
	if len(cpuIdle) > 0 {
		v := pct(cpuIdle, 50)
		r.CPUIdleP50, s.CPUIdle = &v, &v
	}
	r.RuleLimited, r.RuleWhy = headroom.Judge(s)
}

// lagByLevel sets the peak of streams in flight and returns the lags by the
// number in flight at each request's start.
func (r *Report) lagByLevel(spans []span) map[int][]float64 {
	starts := make([]int64, len(spans))
	ends := make([]int64, len(spans))
	for i, s := range spans {
		starts[i], ends[i] = s.start, s.end
	}
	slices.Sort(starts)
	slices.Sort(ends)
	byLevel := map[int][]float64{}
	for _, s := range spans {
		level := inFlight(starts, ends, s.start)
		r.PeakStreams = max(r.PeakStreams, level)
		byLevel[level] = append(byLevel[level], s.lagP...)
	}
	if r.PeakStreams == 0 && len(spans) > 0 {
		r.PeakStreams = 1
	}
	return byLevel
}

// judge says whether the machine is the bottleneck (too little idle CPU, or
// a lag p99 over bound) and above how many streams, and writes the verdict.
func (r *Report) judge(headroom *float64, lim Limits, bound time.Duration, byLevel map[int][]float64) {
	if headroom != nil && *headroom < lim.MinHeadroom {
		r.Bottleneck = true
		r.BottleneckAbove = r.PeakStreams
		r.Reasons = append(r.Reasons, fmt.Sprintf("the CPUs were %.0f%% idle (under %.0f%%): timestamps waited for a CPU", 100**headroom, 100*lim.MinHeadroom))
	}
	if r.Events > 0 && r.LagP99 > float64(bound)/ms {
		r.Bottleneck = true
		above := r.PeakStreams
		levels := make([]int, 0, len(byLevel))
		for l := range byLevel {
			levels = append(levels, l)
		}
		slices.Sort(levels)
		for _, l := range levels {
			if xs := byLevel[l]; len(xs) >= 20 && pct(xs, 99) > float64(bound)/ms {
				above = l
				break
			}
		}
		if r.BottleneckAbove == 0 || above < r.BottleneckAbove {
			r.BottleneckAbove = above
		}
		r.Reasons = append(r.Reasons, fmt.Sprintf("mid-stream lag p99 %.2f ms is over the bound of %.2f ms", r.LagP99, float64(bound)/ms))
	}
	switch {
	case r.Matched == 0:
		r.Verdict = "no request could be compared with the mock's ground truth: the script made no successful streamed request"
	case r.Bottleneck:
		r.Verdict = fmt.Sprintf("this machine is the bottleneck above %d streams: at this load its own delays (or their risk) enter the numbers; use fewer streams per machine or more machines", r.BottleneckAbove)
	default:
		x := max(math.Abs(r.TTFTErrorP99), r.LagP99, r.ITLErrorP99)
		r.Verdict = fmt.Sprintf("at this load (%d streams at peak), numbers from this machine are good to ±%.2f ms at p99", r.PeakStreams, x)
	}
}

// match finds the mock request a record read: the unused one whose first
// text was written last at or before the record read it (1 ms of clock
// slack), with as many text events when the log kept them all.
func match(cands []*logReq, firstRead int64, n int) *logReq {
	const slack = int64(time.Millisecond)
	i := sort.Search(len(cands), func(i int) bool { return cands[i].firstWrite > firstRead+slack })
	for j, tries := i-1, 0; j >= 0 && tries < 256; j, tries = j-1, tries+1 {
		c := cands[j]
		if c.used || (!c.omitted && len(c.writes) != n) {
			continue
		}
		c.used = true
		return c
	}
	return nil
}

// inFlight is the number of requests started at or before t and not ended
// before t.
func inFlight(starts, ends []int64, t int64) int {
	s := sort.Search(len(starts), func(i int) bool { return starts[i] > t })
	e := sort.Search(len(ends), func(i int) bool { return ends[i] >= t })
	return s - e
}

func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	v, _ := stats.Percentile(s, p)
	return v
}
