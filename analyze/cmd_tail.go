package main

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"io"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

const tailExamples = `  analyze tail records.jsonl.gz
  analyze tail --tail p95 --format markdown records.jsonl
  analyze tail --format json -o tail.json shard1.jsonl.gz shard2.jsonl.gz
  analyze tail --plot stages.svg records.jsonl
`

func runTail(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("tail", "tail [flags] RECORDS...", tailExamples, stderr)
	var (
		out     cli.Output
		tailAt  string
		fig     string
		lenient bool
		o       = tail.DefaultOptions()
	)
	out.Register(fs, output.Text, output.Markdown, output.JSON)
	fs.StringVar(&tailAt, "tail", "p99", "the `percentile` of TTFT above which a request is in the tail (p99, p95, 99.9)")
	fs.Float64Var(&o.Confidence, "confidence", o.Confidence, "confidence level of the intervals, between 0 and 1")
	fs.Float64Var(&o.MinEffect, "min-effect", o.MinEffect, "smallest effect (Cliff's δ or concentration, 0..1) named as setting the tail apart")
	fs.BoolVar(&lenient, "lenient", false, "skip bad lines of the records files (their numbers are reported) instead of failing")
	fs.StringVar(&fig, "plot", "", "also draw the mean time per stage of the median and the tail requests into this `file` (.png or .svg)")
	paths, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := tailFlagsValid(&out, &o, tailAt, fig, paths); err != nil {
		return err
	}
	reqs, err := tail.ReadWith(paths, tail.ReadOptions{Lenient: lenient}, stderr)
	if err != nil {
		return err
	}
	res, err := tail.Analyze(reqs, o)
	if err != nil {
		return rundata.Errorf("%s: %v", strings.Join(paths, ", "), err)
	}
	if err := out.Write(stdout, func(w io.Writer) error { return output.WriteTail(w, out.Format, res) }); err != nil || fig == "" {
		return err
	}
	return saveTailPlot(res, fig, stderr)
}

// saveTailPlot draws the stage profile into path (--plot).
func saveTailPlot(res *tail.Result, path string, stderr io.Writer) error {
	f, err := figures.TailStages(res, plot.DPI(figures.DPI))
	if err != nil {
		return err
	}
	if err := f.Save(path); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "analyze tail: wrote %s\n", path)
	return nil
}

// tailFlagsValid checks the flags and sets o.Tail from --tail.
func tailFlagsValid(out *cli.Output, o *tail.Options, tailAt, fig string, paths []string) error {
	if err := out.Validate(); err != nil {
		return err
	}
	var err error
	if o.Tail, err = parseTail(tailAt); err != nil {
		return err
	}
	if c := o.Confidence; !(c > 0 && c < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	if fig != "" {
		if _, err := plot.FormatOf(fig); err != nil {
			return usagef("--plot: %v", err)
		}
	}
	if len(paths) == 0 {
		return usagef("tail: no input: give the helper's records files (--records FILE)")
	}
	return nil
}

// parseTail reads p99, p(99), 99.
func parseTail(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "p("), "p"), ")")
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0 && v < 100) {
		return 0, usagef("--tail %q: want a percentile between 0 and 100, e.g. p99 or p95", s)
	}
	return v, nil
}
