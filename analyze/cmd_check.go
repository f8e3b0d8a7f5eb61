package main

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"io"

	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

const checkExamples = `  analyze check results.json --check 'llm_ttft: p(99)<2000' --check 'llm_requests_failed: rate<0.01'
  analyze check results.json --check 'llm_ttft{model:gpt-4o}: p(95)<800, avg<400'
  analyze check --checks thresholds.json --from 30s --format junit -o checks.xml shard1.json shard2.json
  analyze check --k6-thresholds results.json.gz     (the thresholds the script declared)

A checks file holds one check per line (# comments), or k6's thresholds object:
  {"llm_ttft": ["p(99)<2000"], "llm_requests_failed": ["rate<0.01"]}
A check passes when its limit holds with confidence: a percentile's order-
statistic interval (a Rate's Wilson interval) lies within the limit. One
that fails by k6's value fails; one whose interval straddles the limit or is
left open by too few samples is inconclusive, and fails the gate unless
--allow-inconclusive. avg, min, max, count and a Gauge's value are judged on
their value, as k6 does.
Exit status: 0 all checks pass, 99 a check fails or is inconclusive, 2 bad usage or input, 1 other errors.
`

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("check", "check [flags] FILE... (--check EXPR | --checks FILE | --k6-thresholds)", checkExamples, stderr)
	var (
		in        cli.Input
		out       cli.Output
		cf        cli.Checks
		fromInput bool
	)
	in.Register(fs)
	out.Register(fs, output.Text, output.Markdown, output.JSON, output.JUnit)
	cf.Register(fs, "to evaluate")
	gf := cli.Gate{}
	gf.Register(fs, "checks")
	fs.BoolVar(&fromInput, "k6-thresholds", false, "also check the thresholds the k6 script set on its metrics (from the Metric declarations of any input, read before judging; thresholds on submetrics are not recorded there)")
	paths, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := out.Validate(); err != nil {
		return err
	}
	if len(in.By) > 0 || len(in.Metrics) > 0 {
		return usagef("--by and --metric do not apply to check: a check names its metric, and is evaluated on all the inputs merged (filter with --where)")
	}
	if err := gf.Validate(); err != nil {
		return err
	}
	checks, err := cf.Parse()
	if err != nil {
		return err
	}
	if len(checks) == 0 && !fromInput {
		return usagef("no checks: give --check 'METRIC: EXPR', --checks FILE or --k6-thresholds")
	}
	r, err := in.Open(paths, stdin, stderr, func(s *rundata.Selection) { s.MissingOK = true })
	if err != nil {
		return err
	}
	ev := result.NewEvaluator(checks)
	ev.Confidence, ev.AllowInconclusive = gf.Confidence, gf.Allow
	if fromInput {
		// The thresholds are known once every input was read: any input, at
		// any line, may declare some on any metric (Reader.Declaration). So
		// every metric's samples are kept in the one pass (its values, 8
		// bytes a sample: the inputs are not read twice, and stdin could not
		// be), and the checks are made from the declarations after it.
		ev.WantEvery()
	}
	r.SetKeep(ev.Wants)
	if err := ev.Read(r); err != nil {
		return err
	}
	if fromInput {
		if checks, err = appendThresholds(checks, r); err != nil {
			return err
		}
	}
	if err := checkTypos(r, checks); err != nil {
		return err
	}
	rep, err := ev.Evaluate(r, checks)
	if err != nil {
		return err
	}
	if err := out.Write(stdout, func(w io.Writer) error { return output.WriteCheck(w, out.Format, rep) }); err != nil {
		return err
	}
	if rep.Inconclusive > 0 && rep.AllowInconclusive {
		fmt.Fprintf(stderr, "analyze check: warning: %d inconclusive check(s) accepted (--allow-inconclusive)\n", rep.Inconclusive)
	}
	if !rep.OK {
		if out.Format != output.Text || (out.Out != "" && out.Out != "-") {
			fmt.Fprintf(stderr, "analyze check: %s\n", output.CheckTally(rep))
		}
		return errCheckFailed
	}
	return nil
}

// checkTypos refuses, as a usage error naming the metric it likely meant, a
// check on a metric that is neither in the inputs nor one of the module's
// but is a few edits from one the inputs have (llm_ttfy for llm_ttft): a
// typo, not a performance failure. A known metric with no samples, or a
// name close to none, stays a failed check with no data.
func checkTypos(r *rundata.Reader, checks []thresholds.Check) error {
	for _, c := range checks {
		if _, builtin := metrics.Lookup(c.Metric); builtin || r.Seen(c.Metric) || r.Suggest(c.Metric) == "" {
			continue
		}
		return fmt.Errorf("check %q: %w", c.Source, r.NotInInputs(c.Metric))
	}
	return nil
}

// appendThresholds adds the thresholds the inputs declare on their metrics
// to the checks, once every input was read: those of every declaration in
// every input, each once.
func appendThresholds(checks []thresholds.Check, r *rundata.Reader) ([]thresholds.Check, error) {
	for _, name := range r.MetricNames() {
		m, ok := r.Declaration(name)
		if !ok {
			continue
		}
		for _, t := range m.Thresholds {
			e, err := thresholds.ParseExpr(t)
			if err != nil {
				return nil, usagef("threshold %q on %s in the inputs: %v", t, name, err)
			}
			cs, _ := thresholds.Parse(name + ": " + e.Source)
			checks = append(checks, cs...)
		}
	}
	if len(checks) == 0 {
		return nil, usagef("--k6-thresholds: the inputs declare no thresholds, and no other checks were given")
	}
	return checks, nil
}
