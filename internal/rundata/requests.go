package rundata

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
)

// The metrics and metadata the request join reads (metrics' names).
const (
	RequestIDKey = metrics.RequestIDMetadata // the metadata key on every llm_* sample
	MetricFailed = metrics.RequestsFailed
	// MetricAbandoned marks a request its client abandoned (never good).
	MetricAbandoned = metrics.RequestsAbandoned
	MetricOutput    = metrics.OutputTokens
	MetricInput     = metrics.InputTokens
	MetricTTFT      = metrics.TTFT
	MetricE2E       = metrics.E2E
	MetricSLOMet    = metrics.SLOMet
	MetricITLMax    = metrics.ITLMax
)

// RequestStream is a (sub)metric whose smallest and largest sample per
// request the join keeps: the streams an SLO limits.
type RequestStream struct {
	Metric string
	Tags   []k6json.Tag // nil: every sample of the metric
}

// Request is what one request's samples say, joined through the
// llm_request_id metadata.
type Request struct {
	// Group is the group of the request's first sample.
	Group *Group
	// End is the time of its llm_requests_failed sample (when it ended);
	// Ended is false when it has none.
	End    time.Time
	Ended  bool
	Failed bool
	// Abandoned is true when its llm_requests_abandoned sample is 1.
	Abandoned bool
	// OutputTokens and InputTokens sum its token counter samples.
	OutputTokens, InputTokens float64
	// TTFT and E2E are its llm_ttft and llm_e2e samples in ms (NaN: none).
	TTFT, E2E float64
	// HasITLMax is true when it has an llm_itl_max sample (≥ 2 text events).
	HasITLMax bool
	// SLOMet is its llm_slo_met sample (NaN: the module recorded none).
	SLOMet float64
	// Min and Max are its smallest and largest sample of each of the
	// join's streams (NaN: none).
	Min, Max []float64
}

// Requests joins the samples of each request by their llm_request_id
// metadata (the reader must keep metadata: Options.Metadata). A
// llm_requests_failed sample without the id is a request of its own with no
// other samples; Untracked counts them (without ids there is no goodput).
type Requests struct {
	Streams   []RequestStream
	List      []Request
	Untracked int64
	// LegacyFiles are the inputs whose request ids are of a release before
	// ids were unique across runs ("VU-seq"): their requests are joined
	// within the file only.
	LegacyFiles []int
	byID        map[string]int
	byMetric    map[string][]int
	match       [][]int8 // by stream, by tag set ID: 0 unknown, 1 in, -1 out
}

// NewRequests makes a join that also keeps the per-request extremes of
// streams.
func NewRequests(streams []RequestStream) *Requests {
	j := &Requests{Streams: streams, byID: map[string]int{}, byMetric: map[string][]int{},
		match: make([][]int8, len(streams))}
	for i, s := range streams {
		j.byMetric[s.Metric] = append(j.byMetric[s.Metric], i)
	}
	return j
}

// Wants reports whether the join needs the points of a metric.
func (j *Requests) Wants(metric string) bool {
	switch metric {
	case MetricFailed, MetricAbandoned, MetricOutput, MetricInput, MetricTTFT, MetricE2E, MetricSLOMet, MetricITLMax:
		return true
	}
	return len(j.byMetric[metric]) > 0
}

// Add joins a point of group g, read from input file, into its request.
// Request ids are unique across runs (a random prefix per VU); ids of older
// releases restart every run and are joined within their file only.
func (j *Requests) Add(file int, g *Group, p *k6json.Point) {
	if !j.Wants(p.Metric) {
		return
	}
	var q *Request
	if id, ok := p.MetadataValue(RequestIDKey); ok {
		if legacyID(id) {
			if !slices.Contains(j.LegacyFiles, file) {
				j.LegacyFiles = append(j.LegacyFiles, file)
			}
			id = strconv.Itoa(file) + "/" + id
		}
		q = j.request(id, g)
	} else if p.Metric == MetricFailed {
		j.Untracked++
		j.List = append(j.List, j.newRequest(g))
		q = &j.List[len(j.List)-1]
	} else {
		return
	}
	switch p.Metric {
	case MetricFailed:
		q.End, q.Ended, q.Failed = p.Time, true, p.Value != 0
	case MetricAbandoned:
		q.Abandoned = q.Abandoned || p.Value != 0
	case MetricOutput:
		q.OutputTokens += p.Value
	case MetricInput:
		q.InputTokens += p.Value
	case MetricTTFT:
		q.TTFT = firstOf(q.TTFT, p.Value)
	case MetricE2E:
		q.E2E = firstOf(q.E2E, p.Value)
	case MetricSLOMet:
		q.SLOMet = firstOf(q.SLOMet, p.Value)
	case MetricITLMax:
		q.HasITLMax = true
	}
	for _, i := range j.byMetric[p.Metric] {
		if j.matches(i, p.Tags) {
			q.Min[i] = nanMin(q.Min[i], p.Value)
			q.Max[i] = nanMax(q.Max[i], p.Value)
		}
	}
}

// StreamIndex is the index of a stream in Streams (-1: absent).
func (j *Requests) StreamIndex(metric string, tags []k6json.Tag) int {
	for i, s := range j.Streams {
		if s.Metric == metric && slices.Equal(s.Tags, tags) {
			return i
		}
	}
	return -1
}

func (j *Requests) request(id string, g *Group) *Request {
	i, ok := j.byID[id]
	if !ok {
		i = len(j.List)
		j.byID[id] = i
		j.List = append(j.List, j.newRequest(g))
	}
	return &j.List[i]
}

func (j *Requests) newRequest(g *Group) Request {
	n := len(j.Streams)
	q := Request{Group: g, TTFT: math.NaN(), E2E: math.NaN(), SLOMet: math.NaN(),
		Min: make([]float64, n), Max: make([]float64, n)}
	for i := range n {
		q.Min[i], q.Max[i] = math.NaN(), math.NaN()
	}
	return q
}

func (j *Requests) matches(stream int, ts *k6json.TagSet) bool {
	id := ts.ID()
	m := j.match[stream]
	if id >= len(m) {
		m = append(m, make([]int8, id+1-len(m))...)
		j.match[stream] = m
	}
	if m[id] == 0 {
		m[id] = -1
		if ts.Contains(j.Streams[stream].Tags) {
			m[id] = 1
		}
	}
	return m[id] > 0
}

// legacyID reports whether a request id is of the form older releases wrote:
// digits, a dash, digits (the VU and its sequence number, the same in every
// run).
func legacyID(id string) bool {
	vu, seq, ok := strings.Cut(id, "-")
	return ok && allDigits(vu) && allDigits(seq)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func firstOf(have, v float64) float64 {
	if math.IsNaN(have) {
		return v
	}
	return have
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || b < a {
		return b
	}
	return a
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}
