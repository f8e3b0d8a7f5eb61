package main

import (
	"encoding/json"
	"io"

	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"github.com/llmstream/xk6-llmstream/analyze/export"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/version"
)

const exportExamples = `  analyze export --format llm-d-report run.json.gz run.records.jsonl > report.json
  analyze export --format llm-d-report --slo 'llm_ttft<2000' --description 'baseline' -o report.json run.records.jsonl
`

// formatLLMD is llm-d-benchmark's standard benchmark report v0.2.
const formatLLMD = "llm-d-report"

// runExport writes one run (k6 JSON and/or records) in another harness's
// report format (docs/export.md).
func runExport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("export", "export --format llm-d-report [flags] FILE...", exportExamples, stderr)
	var (
		in         cli.Input
		out        cli.Output
		slo        cli.SLOFlag
		uid, descr string
		sopts      = result.DefaultOptions()
	)
	in.Register(fs)
	slo.Register(fs)
	out.Register(fs, formatLLMD)
	fs.StringVar(&uid, "uid", "", "the report's run.uid (default: a hash of the inputs)")
	fs.StringVar(&descr, "description", "", "the report's run.description")
	paths, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := out.Validate(); err != nil {
		return err
	}
	if len(in.By) > 0 {
		return usagef("--by: a report describes one run as a whole; export each group's inputs on their own (--where)")
	}
	in.Metadata = true
	r, err := in.Open(paths, stdin, stderr, cli.AlsoFailed)
	if err != nil {
		return err
	}
	join, tput, err := slo.Join(r, sopts.Stats.Confidence)
	if err != nil {
		return err
	}
	sopts.Throughput = tput
	sopts.Stats.Percentiles = export.Percentiles
	d, err := rundata.Collect(r, rundata.CollectOptions{Requests: join})
	if err != nil {
		return err
	}
	rep, err := export.Build(result.Summarize(d, sopts), d, export.Run{
		UID: uid, Description: descr, ToolVersion: version.Version, Inputs: paths, SLO: slo.Exprs})
	if err != nil {
		return &rundata.InputError{Err: err}
	}
	return out.Write(stdout, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
}
