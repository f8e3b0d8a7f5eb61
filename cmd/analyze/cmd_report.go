package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/report"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/model"
	"github.com/llmstream/xk6-llmstream/result"
	"github.com/llmstream/xk6-llmstream/stats"
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
		slo    sloFlags
		dir    string
		title  string
		sopts  = stats.DefaultOptions()
		failed = result.DefaultMaxFailureRate
	)
	in.register(fs)
	fig.register(fs)
	cf.register(fs, "shown in the report")
	slo.register(fs)
	fs.StringVar(&dir, "o", "", "write the report into this `directory` (made if needed; required)")
	fs.StringVar(&title, "title", "", "the report's title (default: \"Load test report\" and the inputs)")
	fs.Float64Var(&sopts.Confidence, "confidence", stats.DefaultConfidence, "confidence level of the percentile intervals, between 0 and 1")
	fs.Float64Var(&failed, "max-failure-rate", failed, "warn when the share of failed requests (llm_requests_failed) is above this")
	var gf gateFlags
	gf.register(fs, "checks") // --confidence is the report's own
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := reportFlagsValid(dir, sopts.Confidence, failed); err != nil {
		return err
	}
	fc, err := fig.config()
	if err != nil {
		return err
	}
	checks, err := cf.parse()
	if err != nil {
		return err
	}
	in.metadata = true
	r, err := in.open(paths, stdin, stderr, alsoFailed)
	if err != nil {
		return err
	}
	// One pass feeds the report's series, the requests joined for throughput
	// and, as analyze check does, the checks' streams (which see --where and
	// --from/--to but not --by).
	ev := result.NewEvaluator(checks)
	ev.Confidence, ev.AllowInconclusive = sopts.Confidence, gf.allow
	d, sum, err := collectReport(r, &slo, ev, result.Options{Stats: sopts, MaxFailureRate: failed})
	if err != nil {
		return err
	}
	rep, err := buildReport(d, sum, reportConfig{title: title, fig: fc, stats: sopts})
	if err != nil {
		return err
	}
	if len(checks) > 0 {
		cr, err := ev.Evaluate(r, checks)
		if err != nil {
			return err
		}
		rep.Checks = report.ChecksOf(cr)
	}
	rep.Command = "analyze report " + strings.Join(args, " ")
	rep.Tail = tailSection(paths, fc)
	if err := report.Write(dir, rep); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d figures, also as PNG files beside it)\n", filepath.Join(dir, report.IndexFile), rep.FigureCount())
	if c := rep.Checks; c != nil && (c.Failed > 0 || c.Inconclusive > 0 && !c.AllowInconclusive) {
		fmt.Fprintf(stderr, "analyze report: %d of %d checks failed, %d inconclusive\n", c.Failed, c.Total, c.Inconclusive)
		return errCheckFailed
	}
	return nil
}

// tailSection attributes the TTFT tail of the records inputs (P99, 95%
// intervals), nil when there are none. An attribution that cannot run is a
// line in the section, never an error of the report; the records' damage
// and failed requests are reported by the main read already.
func tailSection(paths []string, fc figureConfig) *report.Tail {
	var recs []string
	for _, p := range paths {
		if model.RecordsFile(p) {
			recs = append(recs, p)
		}
	}
	if len(recs) == 0 {
		return nil
	}
	reqs, err := tail.Read(recs, io.Discard)
	if err != nil {
		return report.TailNotAttributed(err)
	}
	res, err := tail.Analyze(reqs, tail.DefaultOptions())
	if err != nil {
		return report.TailNotAttributed(fmt.Errorf("%s: %w", strings.Join(recs, ", "), err))
	}
	fig, err := figures.TailStages(res, fc.size, plot.DPI(figureDPI))
	if err != nil {
		return report.TailNotAttributed(err)
	}
	caption := fmt.Sprintf("Mean time per stage of the median requests (TTFT p%g–p%g) and of the tail requests (TTFT above p%g): each bar is as long as its group's mean TTFT",
		res.Profile.BandLo, res.Profile.BandHi, res.Tail)
	return report.TailOf(res, report.Figure{File: figures.TailStagesFile, Caption: caption, Fig: fig})
}

// reportFlagsValid checks the report's own flags.
func reportFlagsValid(dir string, confidence, maxFailed float64) error {
	if dir == "" {
		return usagef("-o is required: the directory to write the report into")
	}
	if c := confidence; !(c > 0 && c < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	return nonNegative("max-failure-rate", maxFailed)
}

// collectReport reads the inputs once and summarizes them, throughput
// included, as analyze summary does.
func collectReport(r *model.Reader, slo *sloFlags, ev *result.Evaluator, o result.Options) (*model.Data, *result.Summary, error) {
	join, tput, err := slo.join(r, o.Stats.Confidence)
	if err != nil {
		return nil, nil, err
	}
	o.Throughput = tput
	d, err := model.Collect(r, model.CollectOptions{Timed: true, Requests: join, AlsoKeep: ev.Wants, Also: ev.Add})
	if err != nil {
		return nil, nil, err
	}
	return d, result.Summarize(d, o), nil
}

type reportConfig struct {
	title string
	fig   figureConfig
	stats stats.Options
}

// buildReport lays out the summary of every metric read — tables, values,
// diagnosis, warnings — with its figures.
func buildReport(d *model.Data, sum *result.Summary, c reportConfig) (*report.Report, error) {
	rep := &report.Report{Title: c.title, Generated: time.Now().UTC(), Selection: d.Reader.Selection().String(), Confidence: sum.Confidence}
	if rep.Title == "" {
		labels := make([]string, len(sum.Inputs))
		for i, in := range sum.Inputs {
			labels[i] = in.Label
		}
		rep.Title = "Load test report: " + strings.Join(labels, ", ")
	}
	for i, in := range sum.Inputs {
		first, last := d.FileSpan(i)
		row := report.InputOf(in, first, last)
		for _, n := range row.Notes {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s", in.Path, n))
		}
		rep.Inputs = append(rep.Inputs, row)
	}
	rep.Warnings = append(rep.Warnings, report.SummaryWarnings(sum)...)
	rep.Health = report.SummaryHealth(sum)
	rep.Throughput = report.SummaryThroughput(sum)
	rep.Cost = report.SummaryCost(sum)
	opts := []plot.Option{c.fig.size, plot.DPI(figureDPI)}
	for _, sm := range sum.Metrics {
		m := report.Metric{Name: sm.Name, Kind: sm.Type, Unit: sm.Unit}
		if sm.Type != "trend" {
			for _, g := range sm.Groups {
				m.Values = append(m.Values, report.ValueOf(sm.Type, g, d.Span()))
			}
		} else if err := trendSection(&m, d, sm, c, append(slices.Clone(opts), plot.Metric(sm.Name), plot.Unit(m.Unit))); err != nil {
			return nil, err
		}
		rep.Metrics = append(rep.Metrics, m)
	}
	if len(rep.Metrics) == 0 {
		return nil, usagef("no samples selected for the report (metrics in the inputs: %s)", strings.Join(d.Reader.MetricNames(), ", "))
	}
	return rep, nil
}

// trendSection fills a Trend's table and diagnosis from the summary, and
// draws its figures.
func trendSection(m *report.Metric, d *model.Data, sm result.Metric, c reportConfig, opts []plot.Option) error {
	var series []plot.Series
	// The summary's groups are the series, in the same (group) order.
	for i, s := range d.Series(m.Name) {
		g := sm.Groups[i]
		m.Groups = append(m.Groups, report.TrendGroup(m.Name, g))
		m.Diagnosis = append(m.Diagnosis, g.Tail.Sentence)
		series = append(series, figures.Series(s.Group, s.Trend.Sorted(), c.fig.marks))
	}
	fc := c.fig
	long, ratio := figures.LongTail(d, m.Name)
	autoLog := !fc.logSet && long
	fc.logX = fc.logX || autoLog
	ecdf, err := plot.ECDF(series, fc.ecdfOptions(opts)...)
	if err != nil {
		return fmt.Errorf("%s: %w", m.Name, err)
	}
	m.Notes = append(m.Notes, ecdf.Notes...)
	caption := fmt.Sprintf("ECDF of %s", m.Name)
	if len(series) > 1 {
		caption += ", one curve per group"
	}
	if autoLog {
		caption += fmt.Sprintf("; log value axis, as the tail is long (max is %.0f× P50, over %d×; --log=false draws it linear)", ratio, figures.LongTailRatio)
	}
	m.Figures = append(m.Figures, report.Figure{File: figures.File(m.Name, "ecdf"), Caption: caption, Fig: ecdf})

	width := c.fig.windowFor(d.Span())
	drift, sentences, windows, err := figures.Drift(d, m.Name, width, opts...)
	if err != nil {
		return err
	}
	m.Drift = sentences
	caption = fmt.Sprintf("P50 and P99 of %s per %s window over the run", m.Name, width)
	if width != c.fig.window {
		caption += fmt.Sprintf(" (chosen from the run's %s, shorter than %d × %s; --window sets it)", d.Span().Round(time.Millisecond), figures.MinWindows, c.fig.window)
	}
	m.Figures = append(m.Figures, report.Figure{File: figures.File(m.Name, "drift"), Caption: caption, Fig: drift})
	for _, g := range sm.Groups {
		for _, w := range windows[g.Label] {
			if w.N == 0 {
				continue
			}
			m.Windows = append(m.Windows, report.WindowRow{Group: g.Label, Start: w.Start, End: w.End, N: w.N,
				P50: w.P50, P90: w.P90, P99: w.P99, TooFewForP99: w.TooFewForP99})
		}
	}
	return nil
}
