package sweep

import (
	"math"
	"slices"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// Spec is how every level is judged.
type Spec struct {
	Mode Mode
	// SLO are the limits (ParseSLO), failure rate included.
	SLO []thresholds.Check
	// Deadline, when set, is the per-token deadline every good request
	// meets (metrics.ParseDeadline of --slo deadline.…): each level's helper
	// writes records (RecordsPath) and goodput judges them with
	// metrics.Deadline.Judge, analyze's rule.
	Deadline *metrics.Deadline
	// Confidence of the intervals (default stats.DefaultConfidence).
	Confidence float64
	// Tolerance, MaxDropped and DriftChange tune the over-saturation tests
	// (see DefaultTolerance, DefaultMaxDropped, DefaultDriftChange).
	Tolerance, MaxDropped, DriftChange float64
	// LevelDuration is each level's duration (LLM_DURATION); 0: unknown,
	// the span of the level's output is taken instead.
	LevelDuration time.Duration
}

// DefaultSpec is a Spec with the default confidence and saturation tests.
func DefaultSpec(m Mode, slo []thresholds.Check) Spec {
	return Spec{Mode: m, SLO: slo, Confidence: stats.DefaultConfidence,
		Tolerance: DefaultTolerance, MaxDropped: DefaultMaxDropped, DriftChange: DefaultDriftChange}
}

// Want is what the Reader must collect for this Spec: the SLO's streams, then
// the latency metrics (each stream once).
func (s Spec) Want() Want {
	w := Want{Drift: MetricTTFT}
	for _, c := range s.SLO {
		w.Streams = addStream(w.Streams, Stream{Metric: c.Metric, Tags: c.Tags})
	}
	for _, m := range LatencyMetrics {
		w.Streams = addStream(w.Streams, Stream{Metric: m})
	}
	w.Streams = addStream(w.Streams, Stream{Metric: metrics.ClientLag})
	w.Streams = addStream(w.Streams, Stream{Metric: metrics.ClientCPUIdle})
	if s.Deadline != nil {
		w.Streams = addStream(w.Streams, Stream{Metric: metrics.DeadlineMet})
		w.Deadline = s.Deadline
	}
	return w
}

func addStream(ss []Stream, s Stream) []Stream {
	if streamIndex(ss, s) < 0 {
		ss = append(ss, s)
	}
	return ss
}

func streamIndex(ss []Stream, s Stream) int {
	return slices.IndexFunc(ss, func(t Stream) bool { return t.Metric == s.Metric && slices.Equal(t.Tags, s.Tags) })
}

// Evaluate judges one level's reading: throughput, goodput, latency, each SLO
// limit, over-saturation and the verdict. below is the highest level run
// below this one (nil: none).
func (s Spec) Evaluate(r *Reading, offered float64, below *Level) Level {
	want := s.Want()
	tp, m := s.measure(r)
	lv := Level{
		Offered: offered, LevelS: tp.levelS, WindowS: tp.window, Requests: tp.requests, Failed: tp.failed,
		RPS: m.RPS.Value, AchievedRPS: num(tp.achieved), OutputTPS: m.OutputTPS.Value, GoodputRPS: m.GoodputRPS.Value,
		TotalTPS: m.TotalTPS.Value, Throughput: &m, HTTPFailed: r.HTTPFailed,
		Dropped: int64(math.Round(r.Dropped)), Limits: []LimitVerdict{}, Saturation: []string{}, Incomplete: []string{},
	}
	if r.HasIterations {
		n := int64(math.Round(r.Iterations))
		lv.Iterations, lv.IterationErrors = &n, max(0, n-tp.requests)
	}
	if tp.requests > 0 {
		lv.FailureRate = num(float64(tp.failed) / float64(tp.requests))
	}
	for _, m := range LatencyMetrics {
		lv.Latency = append(lv.Latency, distOf(m, r.Streams[streamIndex(want.Streams, Stream{Metric: m})].Sorted, s.Confidence))
	}
	lv.LoadGenerator = loadGen(r.Streams[streamIndex(want.Streams, Stream{Metric: metrics.ClientLag})].Sorted,
		r.Streams[streamIndex(want.Streams, Stream{Metric: metrics.ClientCPUIdle})].Sorted)
	lv.Verdict = result.Pass
	for _, c := range s.SLO {
		d := r.Streams[streamIndex(want.Streams, Stream{Metric: c.Metric, Tags: c.Tags})]
		d.Seconds = tp.levelS
		l := judge(c, d, s.Confidence)
		lv.Limits = append(lv.Limits, l)
		lv.Verdict = worse(lv.Verdict, l.Verdict)
	}
	if why := s.saturation(offered, tp, r, below); len(why) > 0 {
		lv.Saturation, lv.Verdict = why, result.Saturated
	}
	// A level whose requests do not cover it measured less than the level:
	// it fails, whatever its requests say (not saturation: the load, not
	// the server, fell short).
	if why := s.incomplete(lv, tp); len(why) > 0 {
		lv.Incomplete, lv.Verdict = why, result.Fail
	}
	lv.Pass = lv.Verdict == result.Pass
	return lv
}

// knownOr is the type of one of llmstream.js's metrics, else Trend.
func knownOr(metric string) k6json.Type {
	if t, ok := knownTypes[metric]; ok {
		return t
	}
	return k6json.Trend
}
