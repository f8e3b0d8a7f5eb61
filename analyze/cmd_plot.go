package main

import (
	"flag"
	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"io"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

const plotExamples = `  analyze plot results.json -o ttft.png --metric llm_ttft
  analyze plot results.json -o ecdf.svg --by model --log --band
  analyze plot run-c1.json run-c4.json run-c8.json --by file --labels c=1,c=4,c=8 -o concurrency.png
  analyze plot results.json -o drift.png --metric llm_ttft --drift --window 10s
With several metrics, one file per metric: -o ecdf.png writes ecdf-llm_ttft.png, ecdf-llm_tpot.png, ...
The tail diagnosis (or, with --drift, the drift verdict) of each group goes to stdout.
A capacity sweep's result (xk6-llmstream sweep's sweep.json) draws its capacity figures into a directory:
  analyze plot sweep-20250101-120000/sweep.json -o sweep-20250101-120000
`

func runPlot(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("plot", "plot [flags] FILE... -o OUT.png|OUT.svg", plotExamples, stderr)
	var (
		in    cli.Input
		fig   figureFlags
		out   string
		drift bool
		title string
	)
	in.Register(fs)
	fig.register(fs)
	fs.StringVar(&out, "o", "", "write the figure to this `file`: .png or .svg (required; for a sweep result, the directory)")
	fs.BoolVar(&drift, "drift", false, "draw P50 and P99 per time window (--window) over the run instead of the ECDF")
	fs.StringVar(&title, "title", "", "the figure's title (default: the metric and the kind of figure)")
	paths, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if done, err := plotSweep(fs, paths, out, stdout); done || err != nil {
		return err
	}
	if out == "" {
		return usagef("-o is required: the .png or .svg file to write")
	}
	if _, err := plot.FormatOf(out); err != nil {
		return usagef("-o: %v", err)
	}
	if fig.window.Given && !drift {
		return usagef("--window applies to the drift view: add --drift")
	}
	fc, err := fig.config()
	if err != nil {
		return err
	}
	r, err := in.Open(paths, stdin, stderr, nil)
	if err != nil {
		return err
	}
	d, err := rundata.Collect(r, rundata.CollectOptions{Timed: true, Types: []k6json.Type{k6json.Trend}})
	if err != nil {
		return err
	}
	metrics := d.MetricsOfType(k6json.Trend)
	if len(metrics) == 0 {
		return usagef("no Trend samples selected to plot (metrics in the inputs: %s)", strings.Join(r.MetricNames(), ", "))
	}
	return figures.Plot(d, metrics, fc, figures.PlotOptions{Out: out, Drift: drift, Title: title}, stdout, stderr)
}

// plotSweep draws a capacity sweep's figures when the input is its result
// (done is true then): -o is their directory, and no other flag applies.
func plotSweep(fs *flag.FlagSet, paths []string, dir string, stdout io.Writer) (done bool, err error) {
	for _, p := range paths {
		s, ok, err := figures.ReadSweep(p)
		if !ok {
			continue // k6 output; the reader reports a file it cannot open
		}
		if err != nil {
			return true, rundata.Errorf("%v", err)
		}
		if len(paths) > 1 {
			return true, usagef("%s is a sweep result: plot it alone (other inputs: %d)", p, len(paths)-1)
		}
		var other []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "o" {
				other = append(other, "--"+f.Name)
			}
		})
		if len(other) > 0 {
			return true, usagef("%s is a sweep result: %s apply to k6 output, not to its capacity figures", p, strings.Join(other, ", "))
		}
		if dir == "" {
			return true, usagef("-o is required: the directory to draw %s's capacity figures into", p)
		}
		return true, figures.DrawSweep(s, p, dir, stdout)
	}
	return false, nil
}
