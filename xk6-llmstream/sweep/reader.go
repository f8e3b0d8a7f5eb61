package sweep

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// Reader reads one level's k6 output into what the sweep judges. K6JSON reads
// k6's --out json through analyze's model.Reader.
type Reader interface {
	Read(path string, want Want) (*Reading, error)
}

// Stream is a metric, or a submetric by tags, whose samples are wanted.
type Stream struct {
	Metric string
	Tags   []k6json.Tag // nil: every sample of the metric
}

// Want says what a Reading must hold.
type Want struct {
	// Streams are the (sub)metrics to collect, in the order of
	// Reading.Streams and of Request.Min and Request.Max.
	Streams []Stream
	// Drift names the metric whose samples are kept with their time, for
	// the within-level drift test.
	Drift string
	// Deadline, when set, judges the level's records (RecordsPath of its
	// output, read beside it) on it: their llm_deadline_met samples.
	Deadline *metrics.Deadline
}

// RecordsPath is the records file of the level whose k6 output is out:
// level-4.json.gz → level-4.records.jsonl.
func RecordsPath(out string) string {
	return strings.TrimSuffix(strings.TrimSuffix(out, ".gz"), ".json") + ".records.jsonl"
}

// The k6 metrics read besides the wanted ones: k6's iterations (one per
// iteration that ran to its end, those that threw included), its failed
// HTTP requests, and vus, sampled every second the test runs (so the
// output spans the level even when no request ends).
const (
	MetricIterations    = "iterations"
	MetricHTTPReqFailed = "http_req_failed"
	MetricVUs           = "vus"
)

// Reading is one level's samples.
type Reading struct {
	Input string
	// Streams hold each wanted stream's samples as check evaluates
	// them (a Trend's values sorted; the type from k6's declaration, a Trend
	// when the file declares none). Seconds is left 0: the judging sets the
	// window.
	Streams []thresholds.Data
	// Join holds the requests the level made, joined by their
	// llm_request_id metadata (model), with the extremes of each
	// wanted stream per request, in the order of Want.Streams.
	Join *rundata.Requests
	// Drift holds the samples of Want.Drift with their time since the
	// input's first point.
	Drift []stats.Sample
	// Dropped is the sum of k6's dropped_iterations: iterations an
	// arrival-rate executor could not start for want of a free VU.
	Dropped float64
	// Iterations is the sum of k6's iterations (HasIterations: the output
	// has the metric); HTTPFailed and HTTPReqs count http_req_failed's
	// non-zero samples and all of them.
	Iterations           float64
	HasIterations        bool
	HTTPFailed, HTTPReqs int64
	// Start is the time of the output's first sample, Last of the latest
	// sample read (the wanted metrics, iterations and vus).
	Start, Last time.Time
}

// SpanS is the seconds from the output's first sample to its last read.
func (r *Reading) SpanS() float64 {
	if r.Start.IsZero() || !r.Last.After(r.Start) {
		return 0
	}
	return r.Last.Sub(r.Start).Seconds()
}

// K6JSON reads k6's --out json output (plain or gzip, or cut short by a
// killed k6) with analyze's model.Reader.
type K6JSON struct{}

// Read implements Reader.
func (K6JSON) Read(path string, want Want) (*Reading, error) {
	streams := make([]rundata.RequestStream, len(want.Streams))
	byMetric := map[string][]int{}
	for i, s := range want.Streams {
		streams[i] = rundata.RequestStream{Metric: s.Metric, Tags: s.Tags}
		byMetric[s.Metric] = append(byMetric[s.Metric], i)
	}
	rd := &Reading{Input: path, Join: rundata.NewRequests(streams), Streams: make([]thresholds.Data, len(want.Streams))}
	values := make([]stats.Values, len(want.Streams))
	match := make([][]int8, len(want.Streams)) // by stream, by tag set ID: 0 unknown, 1 in, -1 out
	inputs := []rundata.Input{{Path: path, Label: path}}
	if want.Deadline != nil {
		inputs = append(inputs, rundata.Input{Path: RecordsPath(path), Label: RecordsPath(path)})
	}
	r := rundata.NewReader(rundata.Selection{MissingOK: true}, inputs, rundata.Options{Metadata: true})
	if want.Deadline != nil {
		r.SetDeadline(want.Deadline)
	}
	r.SetKeep(func(m string) bool {
		switch m {
		case want.Drift, MetricDropped, MetricIterations, MetricHTTPReqFailed, MetricVUs:
			return true
		}
		return len(byMetric[m]) > 0 || rd.Join.Wants(m)
	})
	err := r.Each(func(file int, g *rundata.Group, p *k6json.Point) error {
		if p.Time.After(rd.Last) {
			rd.Last = p.Time
		}
		switch p.Metric {
		case MetricDropped:
			rd.Dropped += p.Value
		case MetricIterations:
			rd.Iterations += p.Value
			rd.HasIterations = true
		case MetricHTTPReqFailed:
			rd.HTTPReqs++
			if p.Value != 0 {
				rd.HTTPFailed++
			}
		}
		if p.Metric == want.Drift {
			rd.Drift = append(rd.Drift, stats.Sample{T: p.Elapsed, V: p.Value})
		}
		rd.Join.Add(file, g, p)
		for _, i := range byMetric[p.Metric] {
			if !matches(match, i, p.Tags, want.Streams[i].Tags) {
				continue
			}
			d := &rd.Streams[i]
			d.Count++
			d.Sum += p.Value
			d.Last = p.Value
			if p.Value != 0 {
				d.NonZero++
			}
			values[i].Add(p.Value)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rd.Start = r.Start()
	for i, s := range want.Streams {
		t, _, _ := r.TypeOf(s.Metric) // a Trend when undeclared
		rd.Streams[i].Type = t
		if t == k6json.Trend {
			rd.Streams[i].Sorted = values[i].Sorted()
		}
	}
	slices.SortFunc(rd.Drift, func(a, b stats.Sample) int { return cmp.Compare(a.T, b.T) })
	return rd, nil
}

// matches reports whether a tag set holds a stream's tags, deciding once per
// tag set.
func matches(match [][]int8, stream int, ts *k6json.TagSet, tags []k6json.Tag) bool {
	id := ts.ID()
	m := match[stream]
	if id >= len(m) {
		m = append(m, make([]int8, id+1-len(m))...)
		match[stream] = m
	}
	if m[id] == 0 {
		m[id] = -1
		if ts.Contains(tags) {
			m[id] = 1
		}
	}
	return m[id] > 0
}
