package result

import (
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// stream collects the samples of one metric or submetric.
type stream struct {
	metric string
	tags   []k6json.Tag
	match  []int8 // by tag set ID: 0 not yet known, 1 in, -1 out
	values stats.Values
	data   thresholds.Data
	sorted []float64 // the values, once sorted
	latest time.Time // of the metric's latest point, in any tags
}

func (s *stream) add(p *k6json.Point) {
	id := p.Tags.ID()
	if id >= len(s.match) {
		s.match = append(s.match, make([]int8, id+1-len(s.match))...)
	}
	m := s.match[id]
	if m == 0 {
		m = -1
		if p.Tags.Contains(s.tags) {
			m = 1
		}
		s.match[id] = m
	}
	if m < 0 {
		return
	}
	s.values.Add(p.Value)
	s.data.Count++
	s.data.Sum += p.Value
	s.data.Last = p.Value
	if p.Value != 0 {
		s.data.NonZero++
	}
}

// Evaluator routes points to the streams the checks need, then evaluates the
// checks on them. A check sees every sample the reader passes (--where and
// the time window apply; the grouping does not).
type Evaluator struct {
	// Confidence is the level checks are judged at (Judge);
	// stats.DefaultConfidence unless set.
	Confidence float64
	// AllowInconclusive accepts inconclusive checks: the report is OK
	// without them (they are still reported as inconclusive).
	AllowInconclusive bool

	streams map[string][]*stream // by metric
	last    time.Time            // of the latest point added
	every   bool                 // WantEvery
}

// NewEvaluator makes an evaluator of checks.
func NewEvaluator(checks []thresholds.Check) *Evaluator {
	ev := &Evaluator{streams: map[string][]*stream{}, Confidence: stats.DefaultConfidence}
	for _, c := range checks {
		ev.Want(c.Metric, c.Tags)
	}
	return ev
}

// Want makes sure the samples of a metric with tags are kept.
func (ev *Evaluator) Want(metric string, tags []k6json.Tag) {
	ev.stream(metric, tags)
	if ev.every {
		ev.stream(metric, nil)
	}
}

func (ev *Evaluator) stream(metric string, tags []k6json.Tag) *stream {
	for _, s := range ev.streams[metric] {
		if slices.Equal(s.tags, tags) {
			return s
		}
	}
	s := &stream{metric: metric, tags: tags}
	ev.streams[metric] = append(ev.streams[metric], s)
	return s
}

// WantEvery keeps the samples of every metric, for checks known only once
// the inputs were read: the thresholds they declare (any input, at any line,
// may declare some on any metric; see model.Reader.Declaration). A Counter's
// rate is then taken to the latest sample of the metrics checked, as when
// only those were kept, not of every metric kept in case.
func (ev *Evaluator) WantEvery() {
	ev.every = true
	// Every metric has its whole stream (Add makes those of the others).
	for m := range ev.streams {
		ev.stream(m, nil)
	}
}

// Wants reports whether a check needs the points of a metric (with
// WantEvery, of any metric).
func (ev *Evaluator) Wants(metric string) bool { return ev.every || len(ev.streams[metric]) > 0 }

// Add routes a point to the streams of its metric.
func (ev *Evaluator) Add(p *k6json.Point) {
	if p.Time.After(ev.last) {
		ev.last = p.Time
	}
	ss := ev.streams[p.Metric]
	if ss == nil && ev.every {
		ss = []*stream{ev.stream(p.Metric, nil)}
	}
	for _, s := range ss {
		if p.Time.After(s.latest) {
			s.latest = p.Time
		}
		s.add(p)
	}
}

// Read reads the inputs and adds every point the reader passes.
func (ev *Evaluator) Read(r *rundata.Reader) error {
	return r.Each(func(_ int, _ *rundata.Group, p *k6json.Point) error {
		ev.Add(p)
		return nil
	})
}

// Evaluate evaluates the checks on what was read. A check whose aggregate
// does not fit its metric's type is an InputError.
func (ev *Evaluator) Evaluate(r *rundata.Reader, checks []thresholds.Check) (*CheckReport, error) {
	rep := &CheckReport{Schema: CheckSchema, Inputs: Inputs(r), Selection: SelectionOf(r.Selection()), Checks: []CheckResult{},
		Confidence: ev.Confidence, AllowInconclusive: ev.AllowInconclusive}
	// A Counter's rate is per second of the time from the earliest input's
	// first sample to the latest sample read (with WantEvery, of the metrics
	// checked).
	first, last := r.Start(), ev.last
	if ev.every {
		last = time.Time{}
		for _, c := range checks {
			for _, s := range ev.streams[c.Metric] {
				if s.latest.After(last) {
					last = s.latest
				}
			}
		}
	}
	seconds := 0.0
	if !first.IsZero() && last.After(first) {
		seconds = last.Sub(first).Seconds()
	}
	for _, c := range checks {
		s := ev.stream(c.Metric, c.Tags)
		typ, contains := k6json.TypeUnknown, k6json.Default
		if m, ok := r.Declaration(c.Metric); ok {
			typ, contains = m.Type, m.Contains
		} else if s.data.Count > 0 {
			typ = k6json.Trend
			r.WarnUndeclared(c.Metric)
		}
		if typ != k6json.TypeUnknown {
			if err := c.Validate(typ); err != nil {
				return nil, &rundata.InputError{Err: err}
			}
		}
		if s.sorted == nil {
			s.sorted = s.values.Sorted()
		}
		d := s.data
		d.Type, d.Sorted, d.Seconds = typ, s.sorted, seconds
		res := c.Evaluate(d)
		if !res.Defined && d.Count == 0 {
			res.Reason = noDataReason(r, c)
		}
		cr := checkResult(c, d, res, Judge(c, d, ev.Confidence), contains.Unit())
		switch cr.Verdict {
		case Pass:
			rep.Passed++
		case Inconclusive:
			rep.Inconclusive++
		default:
			rep.Failed++
		}
		rep.Checks = append(rep.Checks, cr)
	}
	rep.OK = rep.Failed == 0 && (rep.Inconclusive == 0 || ev.AllowInconclusive)
	return rep, nil
}

// checkResult is a check's result: k6's verdict on the value, and the
// verdict with confidence, which fails whenever k6's does.
func checkResult(c thresholds.Check, d thresholds.Data, res thresholds.Result, j Judgement, unit string) CheckResult {
	cr := CheckResult{
		Check: c.Source, Metric: c.Metric, Tags: map[string]string{}, Expression: c.Expr.Source,
		Aggregate: c.Expr.Aggregate.String(), Operator: c.Expr.Op, Limit: c.Expr.Limit, Unit: unit,
		Count: d.Count, K6Passed: res.Passed, Verdict: j.Verdict, Reason: res.Reason,
		CILow: F64(j.Lo), CIHigh: F64(j.Hi), Interval: j.Interval, NeededSamples: j.Needed,
	}
	switch {
	case !res.Passed:
		cr.Verdict = Fail
	case j.Verdict != Pass:
		cr.Reason = j.Reason
	}
	cr.Passed = cr.Verdict == Pass
	for _, t := range c.Tags {
		cr.Tags[t.Key] = t.Value
	}
	if res.Defined {
		v := res.Observed
		cr.Observed = &v
	}
	return cr
}

func noDataReason(r *rundata.Reader, c thresholds.Check) string {
	if !r.Seen(c.Metric) {
		return "no data: the inputs have no metric " + c.Metric
	}
	var filters []string
	if len(c.Tags) > 0 {
		filters = append(filters, "the tags "+strings.TrimPrefix(c.Name(), c.Metric))
	}
	filters = append(filters, r.Selection().Filtered()...)
	if len(filters) == 0 {
		return "no data: no samples of " + c.Metric
	}
	return "no data: no samples of " + c.Metric + " match " + strings.Join(filters, " and ")
}
