package main

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"io"
	"path/filepath"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
	"github.com/llmstream/xk6-llmstream/analyze/history"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/report"
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
	metrics, pcts     cli.List
	limits            cli.Repeat
	window            int
	level             float64
	failOn            string
	allowInconclusive bool
	lenient           bool
	fig               figureFlags
}

func runHistory(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("history", "history [flags] FILE", historyExamples, stderr)
	var (
		out cli.Output
		hf  historyFlags
	)
	out.Register(fs, output.Text, output.Markdown, output.JSON)
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
	paths, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 {
		return usagef("want one history file (JSONL written by analyze summary --history), got %d", len(paths))
	}
	if out.Format != output.Text && out.Format != output.Markdown && out.Format != output.JSON {
		return usagef("unknown --format %q (want text, markdown, json)", out.Format)
	}
	hf.plotOut = out.Out
	o, percents, err := hf.options()
	if err != nil {
		return err
	}
	size, err := figures.ParseSize("--size", hf.fig.size)
	if err != nil {
		return usageError{Err: err}
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
	if err := output.WriteHistory(stdout, out.Format, rep); err != nil {
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
	pcts, err := figures.ParsePercents("--percentiles", hf.pcts)
	if err != nil {
		return ro, nil, usageError{Err: err}
	}
	ro.Percents = pcts
	limits, err := history.ParseLimits("--max-regression", hf.limits)
	if err != nil {
		return ro, nil, usageError{Err: err}
	}
	ro.Options = history.Options{Window: hf.window, Limits: limits, Level: hf.level}
	return ro, ro.Percents, nil
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
	sec := report.HistoryOf(rep)
	for _, m := range metrics {
		fig, err := figures.HistoryTrend(series, m, percents, vs, size, plot.DPI(figures.DPI))
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
