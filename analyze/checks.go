package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/check"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
)

// checkFlags are --check and --checks, which check and report share.
type checkFlags struct {
	exprs repeatFlag
	files repeatFlag
}

// register adds the flags; what says what is done with the checks.
func (c *checkFlags) register(fs *flag.FlagSet, what string) {
	fs.Var(&c.exprs, "check", "a check, `'METRIC[{tag:value}]: EXPR'` in k6's threshold syntax, "+what+" (repeatable)")
	fs.Var(&c.files, "checks", "read checks from this `file`: one per line, or a JSON object like k6's thresholds option (repeatable)")
}

// parse reads the checks, --check ones first, in the order given.
func (c *checkFlags) parse() ([]check.Check, error) {
	var checks []check.Check
	for _, e := range c.exprs {
		cs, err := check.Parse(e)
		if err != nil {
			return nil, usagef("--check: %v", err)
		}
		checks = append(checks, cs...)
	}
	for _, f := range c.files {
		cs, err := check.ReadFile(f)
		if err != nil {
			return nil, usagef("--checks: %v", err)
		}
		checks = append(checks, cs...)
	}
	return checks, nil
}

// stream collects the samples of one metric or submetric.
type stream struct {
	metric string
	tags   []k6json.Tag
	match  []int8 // by tag set ID: 0 not yet known, 1 in, -1 out
	values stats.Values
	data   check.Data
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

// evaluator routes points to the streams the checks need, then evaluates the
// checks on them.
type evaluator struct {
	streams map[string][]*stream // by metric
	last    time.Time            // of the latest point added
}

func newEvaluator(checks []check.Check) *evaluator {
	ev := &evaluator{streams: map[string][]*stream{}}
	for _, c := range checks {
		ev.want(c.Metric, c.Tags)
	}
	return ev
}

// want makes sure a stream exists for a metric and tags.
func (ev *evaluator) want(metric string, tags []k6json.Tag) *stream {
	for _, s := range ev.streams[metric] {
		if slices.Equal(s.tags, tags) {
			return s
		}
	}
	s := &stream{metric: metric, tags: tags}
	ev.streams[metric] = append(ev.streams[metric], s)
	return s
}

// wants reports whether a check needs the points of a metric.
func (ev *evaluator) wants(metric string) bool { return len(ev.streams[metric]) > 0 }

// add routes a point to the streams of its metric.
func (ev *evaluator) add(p *k6json.Point) {
	if p.Time.After(ev.last) {
		ev.last = p.Time
	}
	for _, s := range ev.streams[p.Metric] {
		s.add(p)
	}
}

// read reads the inputs and adds every point the reader passes.
func (ev *evaluator) read(r *reader) error {
	return r.each(func(_ int, _ *group, p *k6json.Point) error {
		ev.add(p)
		return nil
	})
}

// report evaluates the checks on what was read.
func (ev *evaluator) report(r *reader, checks []check.Check) (*output.CheckReport, error) {
	rep := &output.CheckReport{Schema: output.CheckSchema, Inputs: reportInputs(r), Selection: reportSelection(r.sel), Checks: []output.CheckResult{}}
	// A Counter's rate is per second of the time from the earliest input's
	// first sample to the latest sample read.
	first := r.start()
	seconds := 0.0
	if !first.IsZero() && ev.last.After(first) {
		seconds = ev.last.Sub(first).Seconds()
	}
	sorted := map[*stream][]float64{}
	for _, c := range checks {
		s := ev.want(c.Metric, c.Tags)
		typ, contains := k6json.TypeUnknown, k6json.Default
		if m, ok := r.decls[c.Metric]; ok {
			typ, contains = m.Type, m.Contains
		} else if s.data.Count > 0 {
			typ = k6json.Trend
			fmt.Fprintf(r.stderr, "analyze: warning: %s has no k6 Metric declaration in the inputs; treating it as a Trend\n", c.Metric)
		}
		if typ != k6json.TypeUnknown {
			if err := c.Validate(typ); err != nil {
				return nil, usageError{err}
			}
		}
		if _, ok := sorted[s]; !ok {
			sorted[s] = s.values.Sorted()
		}
		d := s.data
		d.Type, d.Sorted, d.Seconds = typ, sorted[s], seconds
		res := c.Evaluate(d)
		if !res.Defined && d.Count == 0 {
			res.Reason = noDataReason(r, c)
		}
		cr := output.CheckResult{
			Check: c.Source, Metric: c.Metric, Tags: map[string]string{}, Expression: c.Expr.Source,
			Aggregate: c.Expr.Aggregate.String(), Operator: c.Expr.Op, Limit: c.Expr.Limit, Unit: contains.Unit(),
			Count: d.Count, Passed: res.Passed, Reason: res.Reason,
		}
		for _, t := range c.Tags {
			cr.Tags[t.Key] = t.Value
		}
		if res.Defined {
			v := res.Observed
			cr.Observed = &v
		}
		if cr.Passed {
			rep.Passed++
		} else {
			rep.Failed++
		}
		rep.Checks = append(rep.Checks, cr)
	}
	rep.OK = rep.Failed == 0
	return rep, nil
}

func noDataReason(r *reader, c check.Check) string {
	if !r.names[c.Metric] {
		return "no data: the inputs have no metric " + c.Metric
	}
	var filters []string
	if len(c.Tags) > 0 {
		filters = append(filters, "the tags "+strings.TrimPrefix(c.Name(), c.Metric))
	}
	if len(r.sel.where) > 0 {
		filters = append(filters, "--where")
	}
	if r.sel.from.set || r.sel.to.set {
		filters = append(filters, "the --from/--to window")
	}
	if len(filters) == 0 {
		return "no data: no samples of " + c.Metric
	}
	return "no data: no samples of " + c.Metric + " match " + strings.Join(filters, " and ")
}
