package result

import (
	"math"
	"slices"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// Goodput sources: what decided that a request was good.
const (
	GoodBySLO    = "slo"          // the per-request SLO limits (--slo, a sweep's SLO)
	GoodBySLOMet = metrics.SLOMet // the module's own per-request verdict
)

// RequestPercentiles are the percentiles of the per-request rates: the low
// ones matter (the slowest streams).
var RequestPercentiles = []float64{10, 50, 90, 99}

// Throughput is what one group's requests add up to over its measured
// window: from the end of its first request to the end of its last. The
// rates count the requests that ended after the first (so requests ending
// evenly at r per second give exactly r); the start — the first service time,
// warm-up — is left out by construction, and --from/--to trim more.
type Throughput struct {
	Label  string            `json:"label"`
	Labels map[string]string `json:"labels"`
	// WindowS is the measured window in seconds.
	WindowS float64 `json:"window_s"`
	// Requests ended in the group (failed ones too), Failed of them;
	// Counted is the numerator of RPS: those that ended after the first.
	Requests int64 `json:"requests"`
	Failed   int64 `json:"failed"`
	Counted  int64 `json:"counted"`
	// RPS counts every counted request per second; AchievedRPS the
	// successful ones; OutputTPS their output tokens, TotalTPS their input
	// and output tokens (null when requests carry no llm_request_id to
	// join their tokens); GoodputRPS the successful ones that met every
	// per-request SLO limit (null without a goodput source).
	RPS         Rate `json:"rps"`
	AchievedRPS Rate `json:"achieved_rps"`
	OutputTPS   Rate `json:"output_tps"`
	TotalTPS    Rate `json:"total_tps"`
	GoodputRPS  Rate `json:"goodput_rps"`
	// GoodputSource is GoodBySLO, GoodBySLOMet, or "" (no goodput: no
	// limits and no llm_slo_met, or requests without ids).
	GoodputSource string `json:"goodput_source"`
	Good          int64  `json:"good"`
	// RequestOutputTPS is each successful request's output tokens over its
	// llm_e2e; RequestPrefillTPS its input tokens over its llm_ttft.
	RequestOutputTPS  RateDist `json:"request_output_tps"`
	RequestPrefillTPS RateDist `json:"request_prefill_tps"`
}

// Rate is a per-second figure with its confidence interval: exact Poisson
// (Garwood) for a count of requests, compound-Poisson normal for tokens.
// All null when undefined (a window of 0).
type Rate struct {
	Value *float64 `json:"value"`
	Low   *float64 `json:"low"`
	High  *float64 `json:"high"`
}

// RateDist is the distribution of a per-request rate (tokens/s): its
// percentiles with distribution-free intervals (RequestPercentiles).
type RateDist struct {
	Count       int          `json:"count"`
	Mean        *float64     `json:"mean"`
	Percentiles []Percentile `json:"percentiles"`
}

// ThroughputOptions say how throughput is measured.
type ThroughputOptions struct {
	Confidence float64
	// SLO judges each request for goodput; nil or without limits, a
	// request's llm_slo_met sample does, when the module recorded one.
	SLO *SLOChecks
}

// Throughputs measures every group of a join, in group order.
func Throughputs(j *rundata.Requests, o ThroughputOptions) []Throughput {
	byGroup := map[*rundata.Group][]*rundata.Request{}
	var groups []*rundata.Group
	for i := range j.List {
		q := &j.List[i]
		if _, ok := byGroup[q.Group]; !ok {
			groups = append(groups, q.Group)
		}
		byGroup[q.Group] = append(byGroup[q.Group], q)
	}
	slices.SortFunc(groups, rundata.CompareGroups)
	out := []Throughput{}
	for _, g := range groups {
		t := MeasureThroughput(j, byGroup[g], o)
		t.Label, t.Labels = g.Key, g.LabelMap()
		out = append(out, t)
	}
	return out
}

// MeasureThroughput measures one set of requests of a join.
func MeasureThroughput(j *rundata.Requests, reqs []*rundata.Request, o ThroughputOptions) Throughput {
	t := Throughput{GoodputSource: goodputSource(j, reqs, o.SLO)}
	ended := make([]*rundata.Request, 0, len(reqs))
	for _, q := range reqs {
		if q.Ended {
			ended = append(ended, q)
			if q.Failed {
				t.Failed++
			}
		}
	}
	t.Requests = int64(len(ended))
	t.RequestOutputTPS, t.RequestPrefillTPS = requestRates(ended, o.Confidence)
	if len(ended) < 2 {
		return t
	}
	slices.SortFunc(ended, func(a, b *rundata.Request) int { return a.End.Compare(b.End) })
	t.WindowS = ended[len(ended)-1].End.Sub(ended[0].End).Seconds()
	if t.WindowS <= 0 {
		return t
	}
	var ok int64
	var out, outSq, total, totalSq float64
	for _, q := range ended[1:] {
		t.Counted++
		if q.Failed {
			continue
		}
		ok++
		out, outSq = out+q.OutputTokens, outSq+q.OutputTokens*q.OutputTokens
		all := q.OutputTokens + q.InputTokens
		total, totalSq = total+all, totalSq+all*all
		if t.GoodputSource != "" && o.SLO.good(j, q, t.GoodputSource) {
			t.Good++
		}
	}
	t.RPS = countRate(t.Counted, t.WindowS, o.Confidence)
	t.AchievedRPS = countRate(ok, t.WindowS, o.Confidence)
	if j.Untracked == 0 { // without ids, tokens cannot be put to their request
		t.OutputTPS = sumRate(out, outSq, t.WindowS, o.Confidence)
		t.TotalTPS = sumRate(total, totalSq, t.WindowS, o.Confidence)
	}
	if t.GoodputSource != "" {
		t.GoodputRPS = countRate(t.Good, t.WindowS, o.Confidence)
	}
	return t
}

func countRate(n int64, window, confidence float64) Rate {
	lo, hi := stats.PoissonInterval(n, confidence)
	return Rate{Value: F64(float64(n) / window), Low: F64(lo / window), High: F64(hi / window)}
}

func sumRate(sum, sumSq, window, confidence float64) Rate {
	lo, hi := stats.CompoundPoissonInterval(sum, sumSq, confidence)
	return Rate{Value: F64(sum / window), Low: F64(lo / window), High: F64(hi / window)}
}

// requestRates are the distributions of the successful requests' output
// tokens/s (over llm_e2e) and prefill tokens/s (input tokens over llm_ttft).
func requestRates(ended []*rundata.Request, confidence float64) (output, prefill RateDist) {
	var o, p stats.Values
	for _, q := range ended {
		if q.Failed {
			continue
		}
		if q.E2E > 0 {
			o.Add(q.OutputTokens / (q.E2E / 1000))
		}
		if q.TTFT > 0 && q.InputTokens > 0 {
			p.Add(q.InputTokens / (q.TTFT / 1000))
		}
	}
	return rateDist(o.Sorted(), confidence), rateDist(p.Sorted(), confidence)
}

func rateDist(sorted []float64, confidence float64) RateDist {
	o := stats.DefaultOptions()
	o.Percentiles, o.Confidence = RequestPercentiles, confidence
	s := stats.Summarize(sorted, o)
	d := RateDist{Count: s.Count, Mean: F64(s.Mean), Percentiles: []Percentile{}}
	for _, p := range s.Percentiles {
		d.Percentiles = append(d.Percentiles, percentileOf(p))
	}
	return d
}

// goodputSource says what judges the requests: the SLO's limits, else the
// module's llm_slo_met, else nothing; nothing too when a request has no id.
func goodputSource(j *rundata.Requests, reqs []*rundata.Request, slo *SLOChecks) string {
	if j.Untracked > 0 {
		return ""
	}
	if slo != nil && (len(slo.Checks) > 0 || slo.Deadline != nil) {
		return GoodBySLO
	}
	if slices.ContainsFunc(reqs, func(q *rundata.Request) bool { return !math.IsNaN(q.SLOMet) }) {
		return GoodBySLOMet
	}
	return ""
}

// SLOChecks judge single requests on SLO limits written in k6's threshold
// syntax, by the one goodput rule of metrics.SLO (the one SLO type).
type SLOChecks struct {
	Checks []thresholds.Check
	// Deadline, when set, is a per-token deadline every token must meet
	// (metrics.Deadline): the request's llm_deadline_met sample, which the
	// records make when the reader has the deadline (rundata.SetDeadline).
	Deadline *metrics.Deadline
	// TypeOf is the k6 type of a metric (a Trend when unknown).
	TypeOf func(metric string) k6json.Type
}

// Streams are the (sub)metrics the join must keep per request for the SLO.
func (s *SLOChecks) Streams() []rundata.RequestStream {
	var out []rundata.RequestStream
	if s == nil {
		return out
	}
	for _, c := range s.Checks {
		st := rundata.RequestStream{Metric: c.Metric, Tags: c.Tags}
		if !slices.ContainsFunc(out, func(o rundata.RequestStream) bool {
			return o.Metric == st.Metric && slices.Equal(o.Tags, st.Tags)
		}) {
			out = append(out, st)
		}
	}
	if s.Deadline != nil {
		out = append(out, rundata.RequestStream{Metric: metrics.DeadlineMet})
	}
	return out
}

func (s *SLOChecks) good(j *rundata.Requests, q *rundata.Request, source string) bool {
	if !q.Ended || q.Failed {
		return false
	}
	if source == GoodBySLOMet {
		return !math.IsNaN(q.SLOMet) && q.SLOMet != 0
	}
	return s.Met(j, q)
}

// Met says whether a request met every per-request limit, by the one
// goodput rule (metrics.SLO.Met, docs/metrics.md#goodput): it did not fail;
// each of its samples of a Trend the SLO limits meets the limit (llm_ttft:
// p(99)<2000 asks its TTFT to be under 2000 ms, llm_itl: p(99)<100 every gap
// to be); its sample of a Rate is on the good side. Samples a request cannot
// have (TPOT of one token, no gap) do not fail it; other missing samples do.
// Limits on Counters and Gauges have no per-request meaning and are left out.
func (s *SLOChecks) Met(j *rundata.Requests, q *rundata.Request) bool {
	if !q.Ended || q.Failed {
		return false
	}
	rule, streams := s.rule(j)
	o := metrics.Outcome{Abandoned: q.Abandoned, OutputTokens: q.OutputTokens, Spans: make([]metrics.Span, len(rule.Limits))}
	for i, si := range streams {
		if si >= 0 && !math.IsNaN(q.Min[si]) {
			o.Spans[i] = metrics.Span{Lo: q.Min[si], Hi: q.Max[si], N: 1}
		}
	}
	if !math.IsNaN(q.TTFT) {
		o.TTFT = metrics.Span{Lo: q.TTFT, Hi: q.TTFT, N: 1}
	}
	if q.HasITLMax {
		o.ITLMax.N = 1
	}
	if s.Deadline != nil {
		if i := j.StreamIndex(metrics.DeadlineMet, nil); i >= 0 && !math.IsNaN(q.Min[i]) {
			o.DeadlineMet = metrics.Span{Lo: q.Min[i], Hi: q.Max[i], N: 1}
		}
	}
	return rule.Met(o)
}

// rule is the SLO as the goodput rule's limits, with the join's stream of
// each (-1: the join did not keep it).
func (s *SLOChecks) rule(j *rundata.Requests) (*metrics.SLO, []int) {
	rule := &metrics.SLO{Deadline: s.Deadline}
	var streams []int
	for _, c := range s.Checks {
		var typ metrics.Type
		switch s.typeOf(c.Metric) {
		case k6json.Trend:
			typ = metrics.Trend
		case k6json.Rate:
			typ = metrics.Rate
		default:
			continue
		}
		op := c.Expr.Op
		if op == "===" {
			op = "=="
		}
		rule.Limits = append(rule.Limits, metrics.Limit{Metric: c.Metric, Op: op, Value: c.Expr.Limit, Type: typ})
		streams = append(streams, j.StreamIndex(c.Metric, c.Tags))
	}
	return rule, streams
}

func (s *SLOChecks) typeOf(metric string) k6json.Type {
	if s.TypeOf == nil {
		return k6json.Trend
	}
	return s.TypeOf(metric)
}

// HoldsValue applies a check's operator and limit to one value, through
// check: the max of a single sample is that sample.
func HoldsValue(e thresholds.Expr, v float64) bool {
	e.Aggregate = thresholds.Aggregate{Kind: thresholds.Max}
	return thresholds.Check{Expr: e}.Evaluate(thresholds.Data{Type: k6json.Trend, Sorted: []float64{v}, Count: 1}).Passed
}
