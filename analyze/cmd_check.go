package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/check"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
)

const checkExamples = `  analyze check results.json --check 'llm_ttft: p(99)<2000' --check 'llm_requests_failed: rate<0.01'
  analyze check results.json --check 'llm_ttft{model:gpt-4o}: p(95)<800, avg<400'
  analyze check --checks thresholds.json --from 30s --format junit -o checks.xml shard1.json shard2.json
  analyze check --k6-thresholds results.json.gz     (the thresholds the script declared)

A checks file holds one check per line (# comments), or k6's thresholds object:
  {"llm_ttft": ["p(99)<2000"], "llm_requests_failed": ["rate<0.01"]}
Exit status: 0 all checks pass, 99 a check fails, 2 bad usage or input, 1 other errors.
`

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", "check [flags] FILE... (--check EXPR | --checks FILE | --k6-thresholds)", checkExamples, stderr)
	var (
		in        inputFlags
		out       outputFlags
		exprs     repeatFlag
		files     repeatFlag
		fromInput bool
	)
	in.register(fs)
	out.register(fs, output.Text, output.Markdown, output.JSON, output.JUnit)
	fs.Var(&exprs, "check", "a check, `'METRIC[{tag:value}]: EXPR'` in k6's threshold syntax (repeatable)")
	fs.Var(&files, "checks", "read checks from this `file`: one per line, or a JSON object like k6's thresholds option (repeatable)")
	fs.BoolVar(&fromInput, "k6-thresholds", false, "also check the thresholds the k6 script set on its metrics (from the inputs' Metric declarations; thresholds on submetrics are not recorded there)")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := out.validate(); err != nil {
		return err
	}
	if len(in.by) > 0 || len(in.metrics) > 0 {
		return usagef("--by and --metric do not apply to check: a check names its metric, and is evaluated on all the inputs merged (filter with --where)")
	}
	var checks []check.Check
	for _, e := range exprs {
		cs, err := check.Parse(e)
		if err != nil {
			return usagef("--check: %v", err)
		}
		checks = append(checks, cs...)
	}
	for _, f := range files {
		cs, err := check.ReadFile(f)
		if err != nil {
			return usagef("--checks: %v", err)
		}
		checks = append(checks, cs...)
	}
	if len(checks) == 0 && !fromInput {
		return usagef("no checks: give --check 'METRIC: EXPR', --checks FILE or --k6-thresholds")
	}
	sel, err := in.selection()
	if err != nil {
		return err
	}
	ins, err := inputsFrom(paths, in.labels)
	if err != nil {
		return err
	}
	ev := newEvaluator(checks)
	r := newReader(sel, ins, in.lenient, stdin, stderr)
	r.sel.missingOK = true
	r.keep = func(name string) bool {
		if fromInput {
			if m, ok := r.decls[name]; ok && len(m.Thresholds) > 0 {
				ev.want(name, nil)
			}
		}
		return len(ev.streams[name]) > 0
	}
	if err := ev.read(r); err != nil {
		return err
	}
	if fromInput {
		for _, name := range r.metricNames() {
			m, ok := r.decls[name]
			if !ok {
				continue
			}
			for _, t := range m.Thresholds {
				e, err := check.ParseExpr(t)
				if err != nil {
					return usagef("threshold %q on %s in the inputs: %v", t, name, err)
				}
				cs, _ := check.Parse(name + ": " + e.Source)
				checks = append(checks, cs...)
			}
		}
		if len(checks) == 0 {
			return usagef("--k6-thresholds: the inputs declare no thresholds, and no other checks were given")
		}
	}
	rep, err := ev.report(r, checks)
	if err != nil {
		return err
	}
	if err := out.write(stdout, func(w io.Writer) error { return output.WriteCheck(w, out.format, rep) }); err != nil {
		return err
	}
	if rep.Failed > 0 {
		if out.format != output.Text || (out.out != "" && out.out != "-") {
			fmt.Fprintf(stderr, "analyze check: %d of %d checks failed\n", rep.Failed, len(rep.Checks))
		}
		return errCheckFailed
	}
	return nil
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

// evaluator routes points to the streams the checks need.
type evaluator struct {
	streams map[string][]*stream // by metric
	first   time.Time
	last    time.Time
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

func (ev *evaluator) read(r *reader) error {
	err := r.each(func(_ int, _ *group, p *k6json.Point) error {
		if p.Time.After(ev.last) {
			ev.last = p.Time
		}
		for _, s := range ev.streams[p.Metric] {
			s.add(p)
		}
		return nil
	})
	for _, f := range r.files {
		if !f.Start.IsZero() && (ev.first.IsZero() || f.Start.Before(ev.first)) {
			ev.first = f.Start
		}
	}
	return err
}

// report evaluates the checks on what was read.
func (ev *evaluator) report(r *reader, checks []check.Check) (*output.CheckReport, error) {
	rep := &output.CheckReport{Schema: output.CheckSchema, Inputs: reportInputs(r), Selection: reportSelection(r.sel), Checks: []output.CheckResult{}}
	seconds := 0.0
	if !ev.first.IsZero() && ev.last.After(ev.first) {
		seconds = ev.last.Sub(ev.first).Seconds()
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
