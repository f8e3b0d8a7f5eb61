package main

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"io"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

const summaryExamples = `  analyze summary results.json
  analyze summary --by model --from 30s results.json.gz
  analyze summary --metric llm_ttft,llm_tpot --where scenario=ramp --format markdown run1.json run2.json
  analyze summary --by file --labels baseline,candidate base.json cand.json
  analyze summary --format json -o summary.json results.json
  analyze summary --by model results.json --history runs.jsonl --label v1.4.2   (append the run to a history)
  analyze summary --definitions vllm,aiperf,guidellm,inference-perf run.records.jsonl.gz   (every tool's TTFT, ITL, TPOT, e2e)
`

func runSummary(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("summary", "summary [flags] FILE...", summaryExamples, stderr)
	var (
		in   cli.Input
		out  cli.Output
		pcts cli.List
		slo  cli.SLOFlag
		opts = result.DefaultOptions()
		hist historyAppendFlags
		defs string
	)
	hist.register(fs)
	in.Register(fs)
	slo.Register(fs)
	out.Register(fs, output.Text, output.Markdown, output.JSON)
	fs.Var(&pcts, "percentiles", "`percentiles` to report, comma-separated (default 50,90,95,99,99.9,99.99)")
	fs.Float64Var(&opts.Stats.Confidence, "confidence", stats.DefaultConfidence, "confidence level of the percentile intervals, between 0 and 1")
	fs.Float64Var(&opts.Stats.MaxRelWidth, "max-ci-width", 0.20, "flag a percentile whose confidence interval is wider than this share of its value")
	fs.Float64Var(&opts.MaxFailureRate, "max-failure-rate", result.DefaultMaxFailureRate, "warn when the share of failed requests (llm_requests_failed) is above this")
	fs.StringVar(&defs, "definitions", "", "add TTFT, ITL and TPOT as these `tools` define them (vllm,aiperf,guidellm,inference-perf,llmperf,sglang or all; ours is always shown) from the records files among the inputs")
	paths, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := out.Validate(); err != nil {
		return err
	}
	if c := opts.Stats.Confidence; !(c > 0 && c < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	if err := cli.NonNegative("max-ci-width", opts.Stats.MaxRelWidth); err != nil {
		return err
	}
	if err := cli.NonNegative("max-failure-rate", opts.MaxFailureRate); err != nil {
		return err
	}
	if len(pcts) > 0 {
		opts.Stats.Percentiles = nil
		for _, p := range pcts {
			v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(p, "p("), ")"), "p"), 64)
			if err != nil || !(v >= 0 && v <= 100) {
				return usagef("--percentiles: %q is not a percentile between 0 and 100", p)
			}
			opts.Stats.Percentiles = append(opts.Stats.Percentiles, v)
		}
	}
	tools, recs, err := definitionsInputs(paths, defs)
	if err != nil {
		return err
	}
	in.Metadata = true
	r, err := in.Open(paths, stdin, stderr, cli.AlsoFailed)
	if err != nil {
		return err
	}
	join, tput, err := slo.Join(r, opts.Stats.Confidence)
	if err != nil {
		return err
	}
	opts.Throughput = tput
	d, err := rundata.Collect(r, rundata.CollectOptions{Requests: join})
	if err != nil {
		return err
	}
	rep := result.Summarize(d, opts)
	extras, err := output.ReadExtras(recs, tools, in.Lenient)
	if err != nil {
		return err
	}
	for _, w := range rep.Alerts {
		fmt.Fprintf(stderr, "analyze: warning: %s\n", w)
	}
	if err := out.Write(stdout, func(w io.Writer) error { return output.WriteSummaryExtras(w, out.Format, rep, extras) }); err != nil {
		return err
	}
	return hist.append(d, rep, stderr)
}
