package main

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"io"
	"path/filepath"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/report"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/stats"
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
	fs := cli.NewFlagSet("report", "report [flags] FILE... -o DIR", reportExamples, stderr)
	var (
		in     cli.Input
		fig    figureFlags
		cf     cli.Checks
		slo    cli.SLOFlag
		dir    string
		title  string
		sopts  = stats.DefaultOptions()
		failed = result.DefaultMaxFailureRate
	)
	in.Register(fs)
	fig.register(fs)
	cf.Register(fs, "shown in the report")
	slo.Register(fs)
	fs.StringVar(&dir, "o", "", "write the report into this `directory` (made if needed; required)")
	fs.StringVar(&title, "title", "", "the report's title (default: \"Load test report\" and the inputs)")
	fs.Float64Var(&sopts.Confidence, "confidence", stats.DefaultConfidence, "confidence level of the percentile intervals, between 0 and 1")
	fs.Float64Var(&failed, "max-failure-rate", failed, "warn when the share of failed requests (llm_requests_failed) is above this")
	var gf cli.Gate
	gf.Register(fs, "checks") // --confidence is the report's own
	paths, err := cli.ParseArgs(fs, args)
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
	checks, err := cf.Parse()
	if err != nil {
		return err
	}
	in.Metadata = true
	r, err := in.Open(paths, stdin, stderr, cli.AlsoFailed)
	if err != nil {
		return err
	}
	// One pass feeds the report's series, the requests joined for throughput
	// and, as analyze check does, the checks' streams (which see --where and
	// --from/--to but not --by).
	ev := result.NewEvaluator(checks)
	ev.Confidence, ev.AllowInconclusive = sopts.Confidence, gf.Allow
	d, sum, err := collectReport(r, &slo, ev, result.Options{Stats: sopts, MaxFailureRate: failed})
	if err != nil {
		return err
	}
	rep, err := report.Build(d, sum, title, fc)
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
	rep.Tail = report.TailSection(paths, fc)
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

// reportFlagsValid checks the report's own flags.
func reportFlagsValid(dir string, confidence, maxFailed float64) error {
	if dir == "" {
		return usagef("-o is required: the directory to write the report into")
	}
	if c := confidence; !(c > 0 && c < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	return cli.NonNegative("max-failure-rate", maxFailed)
}

// collectReport reads the inputs once and summarizes them, throughput
// included, as analyze summary does.
func collectReport(r *rundata.Reader, slo *cli.SLOFlag, ev *result.Evaluator, o result.Options) (*rundata.Data, *result.Summary, error) {
	join, tput, err := slo.Join(r, o.Stats.Confidence)
	if err != nil {
		return nil, nil, err
	}
	o.Throughput = tput
	d, err := rundata.Collect(r, rundata.CollectOptions{Timed: true, Requests: join, AlsoKeep: ev.Wants, Also: ev.Add})
	if err != nil {
		return nil, nil, err
	}
	return d, result.Summarize(d, o), nil
}
