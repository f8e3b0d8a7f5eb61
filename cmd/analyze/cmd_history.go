package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
	"github.com/llmstream/xk6-llmstream/analyze/history"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/report"
	"github.com/llmstream/xk6-llmstream/compare"
)

const historyExamples = `  analyze summary results.json --by model --history runs.jsonl --label v1.4.2   # append tonight's run
  analyze history runs.jsonl                                 # runs per series, alerts
  analyze history runs.jsonl -o trend.png --metric llm_ttft  # P50/P90/P99 per run with intervals
  analyze history runs.jsonl --report report --fail-on regression --window 7 --max-regression p99=10%
  analyze history runs.jsonl --format markdown >> "$GITHUB_STEP_SUMMARY"
A run is a regression when its percentile's lower bound is above the window's
pooled upper bound with the limit added (a step), or when the window rises
steadily (Mann-Kendall) and the run is above its oldest run's upper bound with
the limit (a creep). --fail-on regression exits 99 when the last run of a
series is a regression, or cannot be decided (too few samples, or too few
earlier runs: no baseline) without --allow-inconclusive.
`

type historyFlags struct {
	plotOut, reportTo string
	metrics, pcts     listFlag
	limits            repeatFlag
	window            int
	level             float64
	failOn            string
	allowInconclusive bool
	lenient           bool
	fig               figureFlags
}

func runHistory(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("history", "history [flags] FILE", historyExamples, stderr)
	var (
		out outputFlags
		hf  historyFlags
	)
	out.register(fs, output.Text, output.Markdown, output.JSON)
	fs.Lookup("o").Usage = "write the trend figure to this `file`: .png or .svg (one per metric: OUT-llm_ttft.png); the table goes to stdout"
	fs.Var(&hf.metrics, "metric", "Trend `metric` to show and test (repeatable or comma-separated; default every one recorded)")
	fs.Var(&hf.pcts, "percentiles", "`percentiles` to tabulate and draw (default 50,90,99)")
	fs.Var(&hf.limits, "max-regression", "alert when a percentile is worse than the window by more than this with confidence: `STAT=MAX` (p99=10%, p95=50ms, llm_requests_failed:rate=+1pp) or MAX for P50, P90 and P99 (10%); repeatable (default 10%)")
	fs.IntVar(&hf.window, "window", history.DefaultWindow, "trailing `runs` each run is compared with")
	fs.Float64Var(&hf.level, "confidence", history.DefaultLevel, "confidence level of the trend test and the rate intervals, between 0 and 1")
	fs.StringVar(&hf.failOn, "fail-on", "none", "exit 99 when the last run of a series is a `regression` (none: never)")
	fs.BoolVar(&hf.allowInconclusive, "allow-inconclusive", false, "with --fail-on, do not fail on a last run that cannot be decided (too few samples, or no baseline: too few earlier runs)")
	fs.BoolVar(&hf.lenient, "lenient", false, "skip bad lines in the history file instead of failing")
	fs.StringVar(&hf.reportTo, "report", "", "also write an HTML report with the trend into this `directory`")
	fs.StringVar(&hf.fig.size, "size", "1080x660", "figure size `WxH` in pixels")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usagef("want one history file (JSONL written by analyze summary --history), got %d", len(paths))
	}
	if out.format != output.Text && out.format != output.Markdown && out.format != output.JSON {
		return usagef("unknown --format %q (want text, markdown, json)", out.format)
	}
	hf.plotOut = out.out
	o, percents, err := hf.options()
	if err != nil {
		return err
	}
	size, err := hf.fig.sizeOption()
	if err != nil {
		return err
	}
	f, err := history.ReadFile(paths[0], history.ReadOptions{Lenient: hf.lenient})
	if err != nil {
		return err
	}
	if f.Damage != "" {
		fmt.Fprintf(stderr, "analyze history: warning: %s\n", f.Damage)
	}
	if len(f.Skipped) > 0 {
		fmt.Fprintf(stderr, "analyze history: warning: %s: skipped %d bad lines\n", f.Name, len(f.Skipped))
	}
	if len(f.Records) == 0 {
		return usagef("%s: no runs recorded", paths[0])
	}
	series := history.SeriesOf(f)
	verdicts := history.Evaluate(series, o.Options)
	rep := history.NewReport(f, series, verdicts, o)
	if err := output.WriteHistory(stdout, out.format, rep); err != nil {
		return err
	}
	if err := writeHistoryFigures(stdout, hf, series, verdicts, rep, percents, size); err != nil {
		return err
	}
	if hf.failOn == "regression" && !rep.OK {
		for _, why := range rep.GateFailures(hf.allowInconclusive) {
			fmt.Fprintf(stderr, "analyze history: %s\n", why)
		}
		return errCheckFailed
	}
	return nil
}

// options validates the alert and display flags.
func (hf *historyFlags) options() (history.ReportOptions, []float64, error) {
	ro := history.ReportOptions{Metrics: hf.metrics, AllowInconclusive: hf.allowInconclusive}
	if hf.window < 1 {
		return ro, nil, usagef("--window %d: want 1 or more runs", hf.window)
	}
	if !(hf.level > 0 && hf.level < 1) {
		return ro, nil, usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", hf.level)
	}
	if hf.failOn != "none" && hf.failOn != "regression" {
		return ro, nil, usagef("--fail-on %q: want regression or none", hf.failOn)
	}
	if hf.plotOut != "" && hf.plotOut != "-" {
		if _, err := plot.FormatOf(hf.plotOut); err != nil {
			return ro, nil, usagef("-o: %v", err)
		}
	}
	for _, p := range hf.pcts {
		v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(p), "p("), ")"), "p"), 64)
		if err != nil || !(v > 0 && v < 100) {
			return ro, nil, usagef("--percentiles: %q is not a percentile between 0 and 100", p)
		}
		ro.Percents = append(ro.Percents, v)
	}
	limits, err := historyLimits(hf.limits)
	if err != nil {
		return ro, nil, err
	}
	ro.Options = history.Options{Window: hf.window, Limits: limits, Level: hf.level}
	return ro, ro.Percents, nil
}

// historyLimits parses --max-regression: STAT=MAX as compare reads it, or a
// bare MAX for each of P50, P90 and P99.
func historyLimits(specs []string) ([]compare.Limit, error) {
	if len(specs) == 0 {
		return history.DefaultLimits, nil
	}
	var out []compare.Limit
	for _, s := range specs {
		if !strings.Contains(s, "=") {
			for _, st := range []string{"p50", "p90", "p99"} {
				l, err := compare.ParseLimit(st + "=" + s)
				if err != nil {
					return nil, usagef("--max-regression: %v", err)
				}
				out = append(out, l)
			}
			continue
		}
		l, err := compare.ParseLimit(s)
		if err != nil {
			return nil, usagef("--max-regression: %v", err)
		}
		if _, ok := l.Stat.Percent(); !ok && !l.IsRate() {
			return nil, usagef("--max-regression %q: a history tests percentiles (p99=10%%) and rates (rate=+1pp), not %s", s, l.Stat)
		}
		out = append(out, l)
	}
	return out, nil
}

// writeHistoryFigures draws the trend of each metric to -o and into the
// report.
func writeHistoryFigures(stdout io.Writer, hf historyFlags, series []*history.Series, vs []history.Verdict, rep *history.Report, percents []float64, size plot.Option) error {
	if (hf.plotOut == "" || hf.plotOut == "-") && hf.reportTo == "" {
		return nil
	}
	metrics := []string(hf.metrics)
	if len(metrics) == 0 {
		metrics = history.Metrics(series)
	}
	sec := &report.History{File: rep.File, Runs: rep.Records, Series: len(rep.Series), OK: rep.OK,
		Settings: fmt.Sprintf("Window %d runs; limits %s; trend test at %g%%.", rep.Window, strings.Join(rep.Limits, ", "), 100*rep.Level)}
	for _, v := range rep.Alerts {
		sec.Alerts = append(sec.Alerts, output.VerdictLine(v))
	}
	for _, v := range rep.Latest {
		sec.Latest = append(sec.Latest, output.VerdictLine(v))
		switch v.Status {
		case history.OK:
			sec.Passed++
		case history.Regression:
			sec.Regressions++
		default:
			sec.Undecided++
		}
	}
	for _, m := range metrics {
		fig, err := history.Figure(series, m, percents, vs, size, plot.DPI(figureDPI))
		if err != nil {
			return usagef("%s: %v", m, err)
		}
		if hf.plotOut != "" && hf.plotOut != "-" {
			path := hf.plotOut
			if len(metrics) > 1 {
				ext := filepath.Ext(path)
				path = strings.TrimSuffix(path, ext) + "-" + figures.SafeName(m) + ext
			}
			if err := fig.Save(path); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s\n", path)
		}
		sec.Figures = append(sec.Figures, report.Figure{File: figures.File(m, "trend"), Caption: m + ": percentiles per run with their confidence intervals", Fig: fig})
	}
	if hf.reportTo == "" {
		return nil
	}
	if err := report.Write(hf.reportTo, &report.Report{Title: "Run history: " + rep.File, History: sec}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(hf.reportTo, report.IndexFile))
	return nil
}
