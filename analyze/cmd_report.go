package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/report"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

const reportExamples = `  analyze report results.json -o report
  analyze report --by model --log --band --window 30s results.json.gz -o report
  analyze report run-c1.json run-c8.json --by file --labels c=1,c=8 -o report
  analyze report results.json -o report --check 'llm_ttft: p(99)<2000' --check 'llm_requests_failed: rate<0.01'
Writes DIR/index.html (self-contained: figures inline as SVG, no script, nothing
fetched) and each figure as DIR/<metric>-ecdf.png and DIR/<metric>-drift.png.
Exit status: 0 written (and every check passed), 99 written but a check failed,
2 bad usage or input, 1 other errors.
`

func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "report [flags] FILE... -o DIR", reportExamples, stderr)
	var (
		in     inputFlags
		fig    figureFlags
		cf     checkFlags
		dir    string
		title  string
		sopts  = stats.DefaultOptions()
		failed = 0.05
	)
	in.register(fs)
	fig.register(fs)
	cf.register(fs, "shown in the report")
	fs.StringVar(&dir, "o", "", "write the report into this `directory` (made if needed; required)")
	fs.StringVar(&title, "title", "", "the report's title (default: \"Load test report\" and the inputs)")
	fs.Float64Var(&sopts.Confidence, "confidence", stats.DefaultConfidence, "confidence level of the percentile intervals, between 0 and 1")
	fs.Float64Var(&failed, "max-failure-rate", failed, "warn when the share of failed requests (llm_requests_failed) is above this")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if dir == "" {
		return usagef("-o is required: the directory to write the report into")
	}
	if c := sopts.Confidence; !(c > 0 && c < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	fc, err := fig.config()
	if err != nil {
		return err
	}
	checks, err := cf.parse()
	if err != nil {
		return err
	}
	r, err := in.open(paths, stdin, stderr)
	if err != nil {
		return err
	}
	r.sel.also = []string{"llm_requests_failed"}
	// One pass feeds the report's series and, as analyze check does, the
	// checks' streams (which see --where and --from/--to but not --by).
	ev := newEvaluator(checks)
	td, err := collectTimedWith(r, r.sel.keeps, ev.wants, ev.add)
	if err != nil {
		return err
	}
	rep, err := buildReport(td, r.inputs, reportConfig{title: title, fig: fc, stats: sopts, maxFailure: failed})
	if err != nil {
		return err
	}
	if len(checks) > 0 {
		cr, err := ev.report(r, checks)
		if err != nil {
			return err
		}
		rep.Checks = reportChecks(cr)
	}
	rep.Command = "analyze report " + strings.Join(args, " ")
	if err := report.Write(dir, rep); err != nil {
		return err
	}
	nfig := 0
	for _, m := range rep.Metrics {
		nfig += len(m.Figures)
	}
	fmt.Fprintf(stdout, "wrote %s (%d figures, also as PNG files beside it)\n", filepath.Join(dir, report.IndexFile), nfig)
	if rep.Checks != nil && rep.Checks.Failed > 0 {
		fmt.Fprintf(stderr, "analyze report: %d of %d checks failed\n", rep.Checks.Failed, len(rep.Checks.Rows))
		return errCheckFailed
	}
	return nil
}

type reportConfig struct {
	title      string
	fig        figureConfig
	stats      stats.Options
	maxFailure float64
}

// buildReport lays out every metric read: tables, diagnosis, figures.
func buildReport(td *timedData, ins []input, c reportConfig) (*report.Report, error) {
	r := td.r
	rep := &report.Report{Title: c.title, Generated: time.Now().UTC(), Selection: r.sel.String(), Confidence: c.stats.Confidence}
	if rep.Title == "" {
		labels := make([]string, len(ins))
		for i, in := range ins {
			labels[i] = in.label
		}
		rep.Title = "Load test report: " + strings.Join(labels, ", ")
	}
	for i, f := range r.files {
		in := report.Input{Label: ins[i].label, Path: ins[i].path, First: td.first[i], Last: td.last[i], Points: f.Points, Kept: f.Kept}
		if f.Damage != "" {
			note := fmt.Sprintf("%s; read up to the damage", f.Damage)
			in.Notes = append(in.Notes, note)
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s", ins[i].path, note))
		}
		if f.Skipped > 0 {
			note := fmt.Sprintf("skipped %d corrupt line(s) (lines %s)", f.Skipped, lineList(f.SkippedLines, f.Skipped))
			in.Notes = append(in.Notes, note)
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s", ins[i].path, note))
		}
		rep.Inputs = append(rep.Inputs, in)
	}
	opts := []plot.Option{c.fig.size, plot.DPI(figureDPI)}
	for _, name := range td.metrics() {
		if !r.sel.keeps(name) {
			continue
		}
		typ, contains := r.metricType(name)
		m := report.Metric{Name: name, Kind: typ.String(), Unit: contains.Unit()}
		mopts := append(slices.Clone(opts), plot.Metric(name), plot.Unit(m.Unit))
		ss := td.ordered(name)
		switch typ {
		case k6json.Trend:
			if err := trendSection(&m, td, ss, c, mopts); err != nil {
				return nil, err
			}
		case k6json.Rate:
			for _, s := range ss {
				n, rate := s.count, s.rate()
				text := fmt.Sprintf("%s (%s of %s non-zero)", numfmt.Percent(rate), numfmt.Thousands(s.nonZero), numfmt.Thousands(n))
				if len(s.kinds) > 0 {
					text += " — " + kindsText(s.kinds)
				}
				m.Values = append(m.Values, report.Value{Label: s.group.key, Text: text})
				if name == "llm_requests_failed" && rate > c.maxFailure {
					rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s of %s requests failed (above %s): the latency figures describe only the requests that succeeded",
						s.label(), numfmt.Percent(rate), numfmt.Thousands(n), numfmt.Percent(c.maxFailure)))
				}
			}
		case k6json.Counter:
			for _, s := range ss {
				text := "sum " + output.Number(s.sum)
				if span := td.span(); span > 0 {
					text += fmt.Sprintf(" (%s/s over %s)", output.Number(s.sum/span.Seconds()), span.Round(time.Millisecond))
				}
				m.Values = append(m.Values, report.Value{Label: s.group.key, Text: text})
			}
		default:
			for _, s := range ss {
				m.Values = append(m.Values, report.Value{Label: s.group.key, Text: "last value " + output.Number(s.last)})
			}
		}
		rep.Metrics = append(rep.Metrics, m)
	}
	if len(rep.Metrics) == 0 {
		return nil, usagef("no samples selected for the report (metrics in the inputs: %s)", strings.Join(r.metricNames(), ", "))
	}
	return rep, nil
}

// trendSection fills a Trend's table, diagnosis and figures.
func trendSection(m *report.Metric, td *timedData, ss []*timedSeries, c reportConfig, opts []plot.Option) error {
	var series []plot.Series
	for _, s := range ss {
		v := s.sorted()
		sum := stats.Summarize(v, c.stats)
		g := report.Group{Label: s.group.key, Count: sum.Count, Min: sum.Min, Mean: sum.Mean, Max: sum.Max}
		var few []string
		for _, p := range sum.Percentiles {
			g.Percentiles = append(g.Percentiles, report.Percentile{Name: p.Name, Value: p.Value, Lo: p.CI.Lo, Hi: p.CI.Hi, TooFew: p.TooFew})
			if p.TooFew {
				few = append(few, p.Name)
			}
		}
		if len(few) > 0 {
			g.Notes = append(g.Notes, fmt.Sprintf("%s: %s rest on fewer than %d samples above them (%s samples).",
				s.label(), strings.Join(few, ", "), c.stats.MinAbove, numfmt.Thousands(int64(sum.Count))))
		}
		m.Groups = append(m.Groups, g)
		m.Diagnosis = append(m.Diagnosis, tail.Diagnose(s.label(), v, tail.Unit(m.Unit)).Sentence)
		series = append(series, ecdfSeries(s.group, v, c.fig.marks))
	}
	ecdf, err := plot.ECDF(series, c.fig.ecdfOptions(opts)...)
	if err != nil {
		return fmt.Errorf("%s: %w", m.Name, err)
	}
	m.Notes = append(m.Notes, ecdf.Notes...)
	caption := fmt.Sprintf("ECDF of %s", m.Name)
	if len(ss) > 1 {
		caption += ", one curve per group"
	}
	m.Figures = append(m.Figures, report.Figure{File: figureFile(m.Name, "ecdf"), Caption: caption, Fig: ecdf})

	width := c.fig.window
	drift, sentences, windows, err := td.drift(m.Name, width, opts)
	if err != nil {
		return err
	}
	m.Drift = sentences
	m.Figures = append(m.Figures, report.Figure{File: figureFile(m.Name, "drift"),
		Caption: fmt.Sprintf("P50 and P99 of %s per %s window over the run", m.Name, width), Fig: drift})
	for _, s := range ss {
		for _, w := range windows[s.group.key] {
			if w.N == 0 {
				continue
			}
			m.Windows = append(m.Windows, report.WindowRow{Group: s.group.key, Start: w.Start, End: w.End, N: w.N,
				P50: w.P50, P90: w.P90, P99: w.P99, TooFewForP99: w.TooFewForP99})
		}
	}
	return nil
}

func reportChecks(cr *output.CheckReport) *report.Checks {
	c := &report.Checks{Passed: cr.Passed, Failed: cr.Failed}
	for _, r := range cr.Checks {
		row := report.CheckRow{Check: r.Check, Passed: r.Passed, Reason: r.Reason}
		if r.Observed != nil {
			row.Observed = output.Number(*r.Observed)
			if r.Unit != "" {
				row.Observed += " " + r.Unit
			}
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

func kindsText(k map[string]int64) string {
	keys := make([]string, 0, len(k))
	for key := range k {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if k[a] != k[b] {
			return int(k[b] - k[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, key := range keys {
		parts[i] = fmt.Sprintf("%s: %s", key, numfmt.Thousands(k[key]))
	}
	return strings.Join(parts, ", ")
}
