package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/compare"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/output"
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
Exit status: 0 no limit broken, 99 a limit broken, 2 bad usage or input, 1 other errors.
`

// CompareSchema identifies the JSON output of compare.
const CompareSchema = "xk6-llmstream/analyze-compare/v1"

// side is one side of a comparison: one or more inputs, merged.
type side struct {
	name  string // "baseline" or "candidate"
	label string // --labels, or the name
	data  *timedData
}

func runCompare(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", "compare [flags] BASELINE CANDIDATE | compare [flags] --base FILE... --candidate FILE...", compareExamples, stderr)
	var (
		in          inputFlags
		out         outputFlags
		bases, cand repeatFlag
		limitArgs   repeatFlag
		statArgs    listFlag
		conf        float64
		seed        uint64
		resamples   int
	)
	in.register(fs)
	out.register(fs, output.Text, output.Markdown, output.JSON)
	fs.Var(&bases, "base", "a baseline `file` (repeatable: several are merged into one population, as summary merges shards)")
	fs.Var(&cand, "candidate", "a candidate `file` (repeatable, merged likewise)")
	fs.Var(&limitArgs, "max-regression", "fail (exit 99) when a statistic is worse by more than this with confidence: `STAT=MAX` or METRIC:STAT=MAX, e.g. p99=10%, llm_ttft:p95=50ms or llm_requests_failed:rate=+1pp (repeatable)")
	fs.Var(&statArgs, "stats", "Trend statistics to compare, comma-separated (default p50,p90,p95,p99,p99.9,avg)")
	fs.Float64Var(&conf, "confidence", compare.DefaultLevel, "confidence level of the intervals, between 0 and 1")
	fs.Uint64Var(&seed, "seed", compare.DefaultSeed, "seed of the bootstrap (the same seed and inputs give the same intervals)")
	fs.IntVar(&resamples, "resamples", compare.DefaultResamples, "bootstrap resamples")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := out.validate(); err != nil {
		return err
	}
	switch {
	case len(bases) == 0 && len(cand) == 0:
		if len(paths) != 2 {
			return usagef("want two inputs, BASELINE and CANDIDATE (or --base FILE... --candidate FILE...); got %d", len(paths))
		}
		bases, cand = paths[:1], paths[1:]
	case len(paths) > 0:
		return usagef("give the inputs either as BASELINE CANDIDATE or with --base and --candidate, not both (also given: %s)", strings.Join(paths, " "))
	case len(bases) == 0 || len(cand) == 0:
		return usagef("--base and --candidate go together: give each side one or more files")
	}
	if countStdin(bases)+countStdin(cand) > 1 {
		return usagef("stdin (-) can be read only once")
	}
	if !(conf > 0 && conf < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", conf)
	}
	if resamples < 100 {
		return usagef("--resamples %d: want at least 100", resamples)
	}
	statList := slices.Clone(compare.DefaultStats)
	if len(statArgs) > 0 {
		statList = nil
		for _, s := range statArgs {
			st, err := compare.ParseStat(s)
			if err != nil {
				return usagef("--stats: %v", err)
			}
			if st == compare.RateStat {
				return usagef("--stats: %q: every Rate metric's rate is compared; --stats lists Trend statistics", s)
			}
			statList = appendStat(statList, st)
		}
	}
	var limits []compare.Limit
	for _, a := range limitArgs {
		l, err := compare.ParseLimit(a)
		if err != nil {
			return usagef("--max-regression: %v", err)
		}
		limits = append(limits, l)
		if !l.IsRate() {
			statList = appendStat(statList, l.Stat)
		}
	}
	sel, err := in.selection()
	if err != nil {
		return err
	}
	if sel.byFile {
		return usagef("--by file does not apply to compare: the two sides are the two groups compared")
	}
	// A limit that names a metric reads it, whatever --metric says.
	for _, l := range limits {
		if l.Metric != "" && !slices.Contains(sel.also, l.Metric) {
			sel.also = append(sel.also, l.Metric)
		}
	}
	labels := []string(in.labels)
	switch {
	case len(labels) == 0:
		labels = []string{"baseline", "candidate"}
	case len(labels) != 2:
		return usagef("--labels names the two sides of compare: want 2 names, got %d", len(labels))
	case labels[0] == labels[1]:
		return usagef("--labels: both sides are named %q", labels[0])
	}
	var sides [2]*side
	for i, paths := range [][]string{bases, cand} {
		ins, err := inputsFrom(paths, nil)
		if err != nil {
			return err
		}
		sides[i] = &side{name: []string{"baseline", "candidate"}[i], label: labels[i]}
		r := newReader(sel, ins, in.lenient, stdin, stderr)
		if sides[i].data, err = collectTimed(r, k6json.Trend, k6json.Rate); err != nil {
			return err
		}
	}
	rep, err := buildCompare(sides, sel, limits, compareConfig{level: conf, seed: seed, resamples: resamples, stats: statList})
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "analyze compare: warning: %s\n", w)
	}
	if err := out.write(stdout, func(w io.Writer) error { return writeCompare(w, out.format, rep) }); err != nil {
		return err
	}
	if !rep.OK {
		if out.format != output.Text || (out.out != "" && out.out != "-") {
			fmt.Fprintf(stderr, "analyze compare: %d regression limit(s) broken\n", rep.broken())
		}
		return errCheckFailed
	}
	return nil
}

func appendStat(list []compare.Stat, s compare.Stat) []compare.Stat {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// compareConfig are the statistical choices of a comparison.
type compareConfig struct {
	level     float64
	seed      uint64
	resamples int
	stats     []compare.Stat
}

// mergedInput describes a side's inputs as one: its label, the paths joined
// with ", ", the counts summed, the earliest start, and the damage of each.
func mergedInput(s *side, files []output.Input) output.Input {
	in := output.Input{Label: s.label}
	var paths, damage []string
	for _, f := range files {
		paths = append(paths, f.Path)
		in.Lines += f.Lines
		in.Points += f.Points
		in.Kept += f.Kept
		in.Skipped += f.Skipped
		if f.Damage != "" {
			damage = append(damage, f.Path+": "+f.Damage)
		}
	}
	if len(files) == 1 {
		in.SkippedLines = files[0].SkippedLines
		in.Damage = files[0].Damage
	} else {
		in.Damage = strings.Join(damage, "; ")
	}
	in.Path = strings.Join(paths, ", ")
	if start := s.data.r.start(); !start.IsZero() {
		in.Start = start.Format(time.RFC3339Nano)
	}
	return in
}

// buildCompare compares every Trend and Rate metric and group the two sides
// share.
func buildCompare(sides [2]*side, sel selection, limits []compare.Limit, c compareConfig) (*compareReport, error) {
	rep := &compareReport{Schema: CompareSchema, Selection: reportSelection(sel), Metrics: []compareMetric{}, Rates: []compareRate{},
		Limits: []limitResult{}, Warnings: []string{}, Confidence: c.level, Resamples: c.resamples, Seed: c.seed}
	for i, s := range sides {
		files := reportInputs(s.data.r)
		if i == 0 {
			rep.Baseline, rep.BaselineFiles = mergedInput(s, files), files
		} else {
			rep.Candidate, rep.CandidateFiles = mergedInput(s, files), files
		}
	}
	base, cand := sides[0].data, sides[1].data
	trends := rep.shared(base.trendMetrics(), cand.trendMetrics())
	rates := rep.shared(base.metricsOfType(k6json.Rate), cand.metricsOfType(k6json.Rate))
	if len(trends)+len(rates) == 0 {
		return nil, usagef("the baseline and the candidate share no Trend or Rate metric with samples (baseline: %s; candidate: %s)",
			listOrNone(base.metrics()), listOrNone(cand.metrics()))
	}
	for _, l := range limits {
		switch {
		case l.Metric == "":
		case l.IsRate() && slices.Contains(trends, l.Metric):
			return nil, usagef("--max-regression %s: %s is a Trend; limit a percentile or avg (e.g. %s:p99=10%%)", l, l.Metric, l.Metric)
		case !l.IsRate() && slices.Contains(rates, l.Metric):
			return nil, usagef("--max-regression %s: %s is a Rate; limit its rate in percentage points (e.g. %s:rate=+1pp)", l, l.Metric, l.Metric)
		case !slices.Contains(trends, l.Metric) && !slices.Contains(rates, l.Metric):
			return nil, usagef("--max-regression %s: no compared metric is named %s (compared: %s)", l, l.Metric, strings.Join(append(trends, rates...), ", "))
		}
	}
	opts := []compare.Option{compare.Level(c.level), compare.Seed(c.seed), compare.Resamples(c.resamples), compare.Stats(c.stats...)}
	limitUsed := make([]bool, len(limits))
	for _, name := range trends {
		cm := compareMetric{Name: name, Unit: base.unit(name)}
		for _, p := range rep.sharedGroups(name, base, cand) {
			b, cs, key := p.base, p.cand, p.base.group.key
			res, err := compare.Compare(b.sorted(), cs.sorted(), opts...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.label(), err)
			}
			g := compareGroup{Label: key, Labels: labelMap(b.group), Baseline: res.NBase, Candidate: res.NCand,
				KSD: f64(res.KS.D), KSP: f64(res.KS.P), Verdict: string(res.Verdict)}
			for _, ch := range res.Changes {
				g.Changes = append(g.Changes, compareChange{Stat: string(ch.Stat), Baseline: f64(ch.Base), Candidate: f64(ch.Cand),
					Delta: f64(ch.Delta), DeltaLow: f64(ch.Lo), DeltaHigh: f64(ch.Hi), Rel: f64(ch.Rel), RelLow: f64(ch.RelLo), RelHigh: f64(ch.RelHi),
					Verdict: string(ch.Verdict)})
			}
			cm.Groups = append(cm.Groups, g)
			for li, l := range limits {
				if !l.IsRate() && l.Applies(name) {
					limitUsed[li] = true
					rep.Limits = append(rep.Limits, evalLimit(l, name, key, res))
				}
			}
		}
		rep.Metrics = append(rep.Metrics, cm)
	}
	for _, name := range rates {
		lower := compare.RateLowerIsBetter(name)
		cr := compareRate{Name: name, LowerIsBetter: lower}
		for _, p := range rep.sharedGroups(name, base, cand) {
			b, cs, key := p.base, p.cand, p.base.group.key
			ch, err := compare.CompareRates(compare.Proportion{NonZero: b.nonZero, Count: b.count},
				compare.Proportion{NonZero: cs.nonZero, Count: cs.count}, c.level, lower)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.label(), err)
			}
			cr.Groups = append(cr.Groups, compareRateGroup{Label: key, Labels: labelMap(b.group),
				Baseline:  rateSide{Count: b.count, NonZero: b.nonZero, Rate: ch.Base.Rate()},
				Candidate: rateSide{Count: cs.count, NonZero: cs.nonZero, Rate: ch.Cand.Rate()},
				Delta:     ch.Delta, DeltaLow: ch.Lo, DeltaHigh: ch.Hi, Verdict: string(ch.Verdict)})
			for li, l := range limits {
				if l.IsRate() && l.Applies(name) {
					limitUsed[li] = true
					rep.Limits = append(rep.Limits, limitResult{Limit: l.String(), Metric: name, Group: key, Stat: string(l.Stat),
						Change: f64(ch.Delta), Low: f64(ch.Lo), High: f64(ch.Hi), Broken: l.ExceededRate(ch), limit: l})
				}
			}
		}
		rep.Rates = append(rep.Rates, cr)
	}
	for i, l := range limits {
		if !limitUsed[i] { // only a limit without a metric gets here
			kind := "Trend"
			if l.IsRate() {
				kind = "Rate"
			}
			return nil, usagef("--max-regression %s: no %s metric was compared in both runs", l, kind)
		}
	}
	rep.OK = true
	for _, l := range rep.Limits {
		if l.Broken {
			rep.OK = false
		}
		if l.Untested != "" {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("--max-regression %s on %s: not tested: %s", l.Limit, l.Metric+groupLabel(l.Group), l.Untested))
		}
	}
	return rep, nil
}

// shared returns the metrics both sides have, and warns about the others.
func (rep *compareReport) shared(base, cand []string) []string {
	var both []string
	for _, m := range base {
		if slices.Contains(cand, m) {
			both = append(both, m)
		} else {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s is only in the baseline: not compared", m))
		}
	}
	for _, m := range cand {
		if !slices.Contains(base, m) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s is only in the candidate: not compared", m))
		}
	}
	return both
}

// pair is one metric's series in the same group of both sides.
type pair struct{ base, cand *timedSeries }

// sharedGroups returns a metric's series in the groups both sides have, in
// group order, and warns about the others.
func (rep *compareReport) sharedGroups(metric string, base, cand *timedData) []pair {
	bs, cs := map[string]*timedSeries{}, map[string]*timedSeries{}
	var gs []*group
	for _, s := range base.ordered(metric) {
		bs[s.group.key] = s
		gs = append(gs, s.group)
	}
	for _, s := range cand.ordered(metric) {
		cs[s.group.key] = s
		if bs[s.group.key] == nil {
			gs = append(gs, s.group)
		}
	}
	slices.SortStableFunc(gs, groupCompare)
	var pairs []pair
	for _, g := range gs {
		p := pair{bs[g.key], cs[g.key]}
		if p.base == nil || p.cand == nil {
			where := "baseline"
			if p.base == nil {
				where = "candidate"
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s (%s) is only in the %s: not compared", metric, g.key, where))
			continue
		}
		pairs = append(pairs, p)
	}
	return pairs
}

func labelMap(g *group) map[string]string {
	m := map[string]string{}
	for _, l := range g.labels {
		m[l.Key] = l.Value
	}
	return m
}

func evalLimit(l compare.Limit, metric, group string, res compare.Result) limitResult {
	lr := limitResult{Limit: l.String(), Metric: metric, Group: group, Stat: string(l.Stat), limit: l}
	for _, ch := range res.Changes {
		if ch.Stat != l.Stat {
			continue
		}
		if ch.Verdict == compare.TooFew {
			lr.Untested = fmt.Sprintf("too few samples for %s (%d and %d; %d needed in each)", ch.Stat.Label(), res.NBase, res.NCand, ch.Stat.MinN())
			return lr
		}
		if l.Relative {
			lr.Change, lr.Low, lr.High = f64(ch.Rel), f64(ch.RelLo), f64(ch.RelHi)
			if math.IsNaN(ch.RelLo) {
				lr.Untested = fmt.Sprintf("the baseline's %s is not positive, so a relative change is undefined", ch.Stat.Label())
				return lr
			}
		} else {
			lr.Change, lr.Low, lr.High = f64(ch.Delta), f64(ch.Lo), f64(ch.Hi)
		}
		lr.Broken = l.Exceeded(ch)
		return lr
	}
	lr.Untested = "statistic not compared"
	return lr
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
