package main

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"io"
	"slices"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

const compareExamples = `  analyze compare base.json cand.json
  analyze compare base.json.gz cand.json.gz --metric llm_ttft --by model --max-regression p99=10% --max-regression p50=5%
  analyze compare base.json cand.json --max-regression llm_ttft:p95=50ms --format markdown >> "$GITHUB_STEP_SUMMARY"
  analyze compare base.json cand.json --max-regression llm_requests_failed:rate=+1pp
  analyze compare --base shard1.json --base shard2.json --candidate new1.json --candidate new2.json
  analyze compare base.json cand.json --format json -o compare.json
Trends (llm_ttft, ...): lower is better, "worse" means the candidate's
statistic is higher. Rates (llm_requests_failed, llm_slo_met): the change of
the rate in percentage points; a rate named with "fail" or "error" is better
lower, any other better higher.
A limit STAT=MAX (or METRIC:STAT=MAX) is broken when the candidate is worse
by more than MAX with confidence (the change's interval lies beyond MAX). MAX
is a percentage of the baseline (10%) or a time (50ms, 0.2s); for a Rate's
rate, percentage points (rate=+1pp).
Several files per side (--base, --candidate) are merged, as summary merges
the shards of one run; --labels names the two sides.
A limit is inconclusive when it cannot be tested (too few samples) or the
change's interval straddles MAX; it fails the gate unless --allow-inconclusive.
Exit status: 0 every limit holds with confidence, 99 a limit broken or inconclusive, 2 bad usage or input, 1 other errors.
`

// compareFlags are compare's own flags besides the input and output ones.
type compareFlags struct {
	bases, cand cli.Repeat
	limits      cli.Repeat
	stats       cli.List
	opts        result.CompareOptions
}

func runCompare(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("compare", "compare [flags] BASELINE CANDIDATE | compare [flags] --base FILE... --candidate FILE...", compareExamples, stderr)
	var (
		in  cli.Input
		out cli.Output
		cf  compareFlags
	)
	in.Register(fs)
	out.Register(fs, output.Text, output.Markdown, output.JSON)
	fs.Var(&cf.bases, "base", "a baseline `file` (repeatable: several are merged into one population, as summary merges shards)")
	fs.Var(&cf.cand, "candidate", "a candidate `file` (repeatable, merged likewise)")
	fs.Var(&cf.limits, "max-regression", "fail (exit 99) when a statistic is worse by more than this with confidence: `STAT=MAX` or METRIC:STAT=MAX, e.g. p99=10%, llm_ttft:p95=50ms or llm_requests_failed:rate=+1pp (repeatable)")
	fs.Var(&cf.stats, "stats", "Trend statistics to compare, comma-separated (default p50,p90,p95,p99,p99.9,avg)")
	fs.Float64Var(&cf.opts.Level, "confidence", compare.DefaultLevel, "confidence level of the intervals, between 0 and 1")
	fs.Uint64Var(&cf.opts.Seed, "seed", compare.DefaultSeed, "seed of the bootstrap (the same seed and inputs give the same intervals)")
	fs.IntVar(&cf.opts.Resamples, "resamples", compare.DefaultResamples, "bootstrap resamples")
	var gf cli.Gate
	gf.Register(fs, "limits") // --confidence is compare's own

	paths, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := out.Validate(); err != nil {
		return err
	}
	if err := cf.sides(paths); err != nil {
		return err
	}
	limits, err := cf.parse()
	if err != nil {
		return err
	}
	sel, err := in.Selection()
	if err != nil {
		return err
	}
	if sel.ByFile() {
		return usagef("--by file does not apply to compare: the two sides are the two groups compared")
	}
	// A limit that names a metric reads it, whatever --metric says.
	for _, l := range limits {
		if l.Metric != "" && !slices.Contains(sel.Also, l.Metric) {
			sel.Also = append(sel.Also, l.Metric)
		}
	}
	labels, err := sideLabels(in.Labels)
	if err != nil {
		return err
	}
	var sides [2]result.Side
	for i, paths := range [][]string{cf.bases, cf.cand} {
		ins, err := cli.InputsFrom(paths, nil)
		if err != nil {
			return err
		}
		r := rundata.NewReader(sel, ins, in.Options(stdin, stderr))
		d, err := rundata.Collect(r, rundata.CollectOptions{Timed: true, Types: []k6json.Type{k6json.Trend, k6json.Rate}})
		if err != nil {
			return err
		}
		sides[i] = result.Side{Label: labels[i], Data: d}
	}
	cf.opts.AllowInconclusive = gf.Allow
	rep, err := result.Compare(sides[0], sides[1], sel, limits, cf.opts)
	if err != nil {
		return err
	}
	return writeComparison(rep, out, stdout, stderr)
}

// writeComparison writes the comparison and its warnings, and returns
// errCheckFailed when a limit is broken or inconclusive (unless accepted).
func writeComparison(rep *result.Comparison, out cli.Output, stdout, stderr io.Writer) error {
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "analyze compare: warning: %s\n", w)
	}
	if err := out.Write(stdout, func(w io.Writer) error { return output.WriteCompare(w, out.Format, rep) }); err != nil {
		return err
	}
	if rep.Inconclusive > 0 && rep.AllowInconclusive {
		fmt.Fprintf(stderr, "analyze compare: warning: %d inconclusive limit(s) accepted (--allow-inconclusive)\n", rep.Inconclusive)
	}
	if !rep.OK {
		if out.Format != output.Text || (out.Out != "" && out.Out != "-") {
			fmt.Fprintf(stderr, "analyze compare: %d regression limit(s) broken, %d inconclusive\n", rep.Broken(), rep.Inconclusive)
		}
		return errCheckFailed
	}
	return nil
}

// sides takes the two sides from BASELINE CANDIDATE or from --base and
// --candidate.
func (cf *compareFlags) sides(paths []string) error {
	switch {
	case len(cf.bases) == 0 && len(cf.cand) == 0:
		if len(paths) != 2 {
			return usagef("want two inputs, BASELINE and CANDIDATE (or --base FILE... --candidate FILE...); got %d", len(paths))
		}
		cf.bases, cf.cand = paths[:1], paths[1:]
	case len(paths) > 0:
		return usagef("give the inputs either as BASELINE CANDIDATE or with --base and --candidate, not both (also given: %s)", strings.Join(paths, " "))
	case len(cf.bases) == 0 || len(cf.cand) == 0:
		return usagef("--base and --candidate go together: give each side one or more files")
	}
	if cli.CountStdin(cf.bases)+cli.CountStdin(cf.cand) > 1 {
		return usagef("stdin (-) can be read only once")
	}
	return nil
}

// parse validates the statistical flags, sets the statistics compared, and
// returns the limits.
func (cf *compareFlags) parse() ([]compare.RegressionLimit, error) {
	if c := cf.opts.Level; !(c > 0 && c < 1) {
		return nil, usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	if cf.opts.Resamples < 100 {
		return nil, usagef("--resamples %d: want at least 100", cf.opts.Resamples)
	}
	stats := slices.Clone(compare.DefaultStats)
	if len(cf.stats) > 0 {
		stats = nil
		for _, s := range cf.stats {
			st, err := compare.ParseStat(s)
			if err != nil {
				return nil, usagef("--stats: %v", err)
			}
			if st == compare.RateStat {
				return nil, usagef("--stats: %q: every Rate metric's rate is compared; --stats lists Trend statistics", s)
			}
			stats = appendStat(stats, st)
		}
	}
	var limits []compare.RegressionLimit
	for _, a := range cf.limits {
		l, err := compare.ParseLimit(a)
		if err != nil {
			return nil, usagef("--max-regression: %v", err)
		}
		limits = append(limits, l)
		if !l.IsRate() {
			stats = appendStat(stats, l.Stat)
		}
	}
	cf.opts.Stats = stats
	return limits, nil
}

// sideLabels are the names of the two sides: --labels, or baseline and
// candidate.
func sideLabels(labels []string) ([]string, error) {
	switch {
	case len(labels) == 0:
		return []string{"baseline", "candidate"}, nil
	case len(labels) != 2:
		return nil, usagef("--labels names the two sides of compare: want 2 names, got %d", len(labels))
	case labels[0] == labels[1]:
		return nil, usagef("--labels: both sides are named %q", labels[0])
	}
	return labels, nil
}

func appendStat(list []compare.Stat, s compare.Stat) []compare.Stat {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
