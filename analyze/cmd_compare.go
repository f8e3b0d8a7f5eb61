package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/llmstream/xk6-llmstream/analyze/compare"
	"github.com/llmstream/xk6-llmstream/analyze/output"
)

const compareExamples = `  analyze compare base.json cand.json
  analyze compare base.json.gz cand.json.gz --metric llm_ttft --by model --max-regression p99=10% --max-regression p50=5%
  analyze compare base.json cand.json --max-regression llm_ttft:p95=50ms --format markdown >> "$GITHUB_STEP_SUMMARY"
  analyze compare base.json cand.json --format json -o compare.json
Lower is better: "worse" means the candidate's statistic is higher.
A limit STAT=MAX (or METRIC:STAT=MAX) is broken when the lower bound of the
change's confidence interval is above MAX: worse beyond the limit with
confidence. MAX is a percentage of the baseline (10%) or a time (50ms, 0.2s).
Exit status: 0 no limit broken, 99 a limit broken, 2 bad usage or input, 1 other errors.
`

// CompareSchema identifies the JSON output of compare.
const CompareSchema = "xk6-llmstream/analyze-compare/v1"

func runCompare(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", "compare [flags] BASELINE CANDIDATE", compareExamples, stderr)
	var (
		in        inputFlags
		out       outputFlags
		limitArgs repeatFlag
		statArgs  listFlag
		conf      float64
		seed      uint64
		resamples int
	)
	in.register(fs)
	out.register(fs, output.Text, output.Markdown, output.JSON)
	fs.Var(&limitArgs, "max-regression", "fail (exit 99) when a statistic is worse by more than this with confidence: `STAT=MAX` or METRIC:STAT=MAX, e.g. p99=10% or llm_ttft:p95=50ms (repeatable)")
	fs.Var(&statArgs, "stats", "statistics to compare, comma-separated (default p50,p90,p95,p99,p99.9,avg)")
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
	if len(paths) != 2 {
		return usagef("want two inputs, BASELINE and CANDIDATE; got %d", len(paths))
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
		statList = appendStat(statList, l.Stat)
	}
	sel, err := in.selection()
	if err != nil {
		return err
	}
	if sel.byFile {
		return usagef("--by file does not apply to compare: the two inputs are the two sides")
	}
	labels := []string(in.labels)
	if len(labels) == 0 {
		labels = []string{"baseline", "candidate"}
	}
	ins, err := inputsFrom(paths, labels)
	if err != nil {
		return err
	}
	var sides [2]*timedData
	for i := range sides {
		r := newReader(sel, ins[i:i+1], in.lenient, stdin, stderr)
		if sides[i], err = collectTimed(r, true); err != nil {
			return err
		}
	}
	rep, err := buildCompare(sides, ins, sel, limits, compareConfig{level: conf, seed: seed, resamples: resamples, stats: statList})
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

// compareReport is the result of compare, and its JSON schema (documented in
// docs/plots.md).
type compareReport struct {
	Schema     string           `json:"schema"`
	Baseline   output.Input     `json:"baseline"`
	Candidate  output.Input     `json:"candidate"`
	Selection  output.Selection `json:"selection"`
	Confidence float64          `json:"confidence"`
	Resamples  int              `json:"resamples"`
	Seed       uint64           `json:"seed"`
	Metrics    []compareMetric  `json:"metrics"`
	Limits     []limitResult    `json:"limits"`
	Warnings   []string         `json:"warnings"`
	OK         bool             `json:"ok"` // no limit broken
}

type compareMetric struct {
	Name   string         `json:"name"`
	Unit   string         `json:"unit"`
	Groups []compareGroup `json:"groups"`
}

type compareGroup struct {
	Label     string            `json:"label"`
	Labels    map[string]string `json:"labels"`
	Baseline  int               `json:"baseline_count"`
	Candidate int               `json:"candidate_count"`
	KSD       *float64          `json:"ks_d"`
	KSP       *float64          `json:"ks_p"`
	Verdict   string            `json:"verdict"`
	Changes   []compareChange   `json:"changes"`
}

type compareChange struct {
	Stat      string   `json:"stat"`
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	Delta     *float64 `json:"delta"`
	DeltaLow  *float64 `json:"delta_low"`
	DeltaHigh *float64 `json:"delta_high"`
	Rel       *float64 `json:"rel"` // (candidate − baseline)/baseline
	RelLow    *float64 `json:"rel_low"`
	RelHigh   *float64 `json:"rel_high"`
	Verdict   string   `json:"verdict"`
}

type limitResult struct {
	Limit    string   `json:"limit"` // as ParseLimit reads it
	Metric   string   `json:"metric"`
	Group    string   `json:"group"`
	Stat     string   `json:"stat"`
	Change   *float64 `json:"change"`             // relative or absolute, as the limit
	Low      *float64 `json:"low"`                // the interval's lower bound
	High     *float64 `json:"high"`               // and upper bound
	Broken   bool     `json:"broken"`             // low > max
	Untested string   `json:"untested,omitempty"` // why it could not be tested
	limit    compare.Limit
}

func (r *compareReport) broken() int {
	n := 0
	for _, l := range r.Limits {
		if l.Broken {
			n++
		}
	}
	return n
}

// compareConfig are the statistical choices of a comparison.
type compareConfig struct {
	level     float64
	seed      uint64
	resamples int
	stats     []compare.Stat
}

// buildCompare compares every Trend metric and group the two sides share.
func buildCompare(sides [2]*timedData, ins []input, sel selection, limits []compare.Limit, c compareConfig) (*compareReport, error) {
	rep := &compareReport{Schema: CompareSchema, Selection: reportSelection(sel), Metrics: []compareMetric{}, Limits: []limitResult{}, Warnings: []string{},
		Confidence: c.level, Resamples: c.resamples, Seed: c.seed}
	opts := []compare.Option{compare.Level(c.level), compare.Seed(c.seed), compare.Resamples(c.resamples), compare.Stats(c.stats...)}
	for i, side := range sides {
		in := reportInputs(side.r)[0]
		in.Label = ins[i].label
		if i == 0 {
			rep.Baseline = in
		} else {
			rep.Candidate = in
		}
	}
	base, cand := sides[0].trendMetrics(), sides[1].trendMetrics()
	var names []string
	for _, m := range base {
		if slices.Contains(cand, m) {
			names = append(names, m)
		} else {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s is only in the baseline: not compared", m))
		}
	}
	for _, m := range cand {
		if !slices.Contains(base, m) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s is only in the candidate: not compared", m))
		}
	}
	if len(names) == 0 {
		return nil, usagef("the baseline and the candidate share no Trend metric with samples (baseline: %s; candidate: %s)",
			listOrNone(base), listOrNone(cand))
	}
	limitUsed := make([]bool, len(limits))
	for _, name := range names {
		cm := compareMetric{Name: name, Unit: sides[0].unit(name)}
		bs, cs := seriesByKey(sides[0].ordered(name)), seriesByKey(sides[1].ordered(name))
		for _, key := range unionKeys(bs, cs) {
			b, c := bs[key], cs[key]
			if b == nil || c == nil {
				where := "baseline"
				if b == nil {
					where = "candidate"
				}
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s (%s) is only in the %s: not compared", name, key, where))
				continue
			}
			res, err := compare.Compare(b.sorted(), c.sorted(), opts...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.label(), err)
			}
			g := compareGroup{Label: key, Labels: map[string]string{}, Baseline: res.NBase, Candidate: res.NCand,
				KSD: f64(res.KS.D), KSP: f64(res.KS.P), Verdict: string(res.Verdict)}
			for _, l := range b.group.labels {
				g.Labels[l.Key] = l.Value
			}
			for _, ch := range res.Changes {
				g.Changes = append(g.Changes, compareChange{Stat: string(ch.Stat), Baseline: f64(ch.Base), Candidate: f64(ch.Cand),
					Delta: f64(ch.Delta), DeltaLow: f64(ch.Lo), DeltaHigh: f64(ch.Hi), Rel: f64(ch.Rel), RelLow: f64(ch.RelLo), RelHigh: f64(ch.RelHi),
					Verdict: string(ch.Verdict)})
			}
			cm.Groups = append(cm.Groups, g)
			for li, l := range limits {
				if !l.Applies(name) {
					continue
				}
				limitUsed[li] = true
				rep.Limits = append(rep.Limits, evalLimit(l, name, key, res))
			}
		}
		rep.Metrics = append(rep.Metrics, cm)
	}
	for i, l := range limits {
		if !limitUsed[i] {
			return nil, usagef("--max-regression %s: no compared metric is named %s (compared: %s)", l, l.Metric, strings.Join(names, ", "))
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

func seriesByKey(ss []*timedSeries) map[string]*timedSeries {
	m := make(map[string]*timedSeries, len(ss))
	for _, s := range ss {
		m[s.group.key] = s
	}
	return m
}

func unionKeys(a, b map[string]*timedSeries) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// groupLabel is " (model=a)", or "" for the whole population.
func groupLabel(key string) string {
	if key == "" || key == "all" {
		return ""
	}
	return " (" + key + ")"
}

// writeCompare writes the report as text, Markdown or JSON.
func writeCompare(w io.Writer, format string, r *compareReport) error {
	if format == output.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	md := format == output.Markdown
	ew := &errorWriter{w: w}
	if md {
		ew.printf("## Baseline vs candidate\n\n")
		ew.printf("- baseline: `%s` (%s samples of the selected metrics)\n- candidate: `%s` (%s samples)\n",
			r.Baseline.Path, thousands(r.Baseline.Kept), r.Candidate.Path, thousands(r.Candidate.Kept))
		ew.printf("- %s intervals, bootstrap of %d resamples (seed %d); lower is better\n", pctLevel(r.Confidence), r.Resamples, r.Seed)
	} else {
		ew.printf("baseline:  %s (%s samples of the selected metrics)\ncandidate: %s (%s samples)\n",
			r.Baseline.Path, thousands(r.Baseline.Kept), r.Candidate.Path, thousands(r.Candidate.Kept))
		ew.printf("%s intervals, bootstrap of %d resamples (seed %d); lower is better\n", pctLevel(r.Confidence), r.Resamples, r.Seed)
	}
	for _, m := range r.Metrics {
		for _, g := range m.Groups {
			head := fmt.Sprintf("%s%s — %s", m.Name, groupLabel(g.Label), g.Verdict)
			facts := fmt.Sprintf("baseline n=%s, candidate n=%s, Kolmogorov–Smirnov D=%s p=%s",
				thousands(int64(g.Baseline)), thousands(int64(g.Candidate)), numOrDash(g.KSD), pValue(g.KSP))
			if md {
				ew.printf("\n### %s\n\n%s\n\n| stat | baseline | candidate | change%s | %s CI | change %% | %s CI | verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n",
					head, facts, unitSuffix(m.Unit), pctLevel(r.Confidence), pctLevel(r.Confidence))
				for _, c := range g.Changes {
					ew.printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", statLabel(c.Stat), withUnitText(c.Baseline, m.Unit), withUnitText(c.Candidate, m.Unit),
						signed(c.Delta), interval(c.DeltaLow, c.DeltaHigh, signed), signedPct(c.Rel), interval(c.RelLow, c.RelHigh, signedPct), c.Verdict)
				}
				continue
			}
			ew.printf("\n%s\n  %s\n", head, facts)
			tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "  stat\tbaseline\tcandidate\tchange%s\t%s CI\tchange %%\t%s CI\t verdict\n", unitSuffix(m.Unit), pctLevel(r.Confidence), pctLevel(r.Confidence))
			for _, c := range g.Changes {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t %s\n", statLabel(c.Stat), withUnitText(c.Baseline, m.Unit), withUnitText(c.Candidate, m.Unit),
					signed(c.Delta), interval(c.DeltaLow, c.DeltaHigh, signed), signedPct(c.Rel), interval(c.RelLow, c.RelHigh, signedPct), c.Verdict)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	if len(r.Limits) > 0 {
		if md {
			ew.printf("\n### Regression limits\n\n| limit | metric | change | %s CI | result |\n|---|---|--:|--:|---|\n", pctLevel(r.Confidence))
		} else {
			ew.printf("\nregression limits (broken when the interval's lower bound is above the limit):\n")
		}
		for _, l := range r.Limits {
			format := signed
			if l.limit.Relative {
				format = signedPct
			}
			result := "pass"
			switch {
			case l.Broken:
				result = "BROKEN"
			case l.Untested != "":
				result = "not tested: " + l.Untested
			}
			if md {
				ew.printf("| `%s` | %s | %s | %s | %s |\n", l.Limit, l.Metric+groupLabel(l.Group), format(l.Change), interval(l.Low, l.High, format), result)
			} else {
				ew.printf("  %-20s %-32s %s (CI %s): %s\n", l.Limit, l.Metric+groupLabel(l.Group), format(l.Change), interval(l.Low, l.High, format), result)
			}
		}
	}
	if len(r.Warnings) > 0 && md {
		ew.printf("\n")
		for _, w := range r.Warnings {
			ew.printf("> warning: %s\n", w)
		}
	}
	return ew.err
}

// errorWriter keeps the first write error.
type errorWriter struct {
	w   io.Writer
	err error
}

func (e *errorWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errorWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// unitSuffix is " (ms)", or "" without a unit.
func unitSuffix(unit string) string {
	if unit == "" {
		return ""
	}
	return " (" + unit + ")"
}

func statLabel(s string) string { return compare.Stat(s).Label() }

func numOrDash(v *float64) string {
	if v == nil {
		return "—"
	}
	return output.Number(*v)
}

func withUnitText(v *float64, unit string) string {
	if v == nil {
		return "—"
	}
	if unit == "" {
		return output.Number(*v)
	}
	return output.Number(*v) + " " + unit
}

func signed(v *float64) string {
	if v == nil {
		return "—"
	}
	s := output.Number(*v)
	if *v > 0 {
		s = "+" + s
	}
	return s
}

func signedPct(v *float64) string {
	if v == nil {
		return "—"
	}
	s := strconv.FormatFloat(100**v, 'f', 1, 64) + "%"
	if *v > 0 {
		s = "+" + s
	}
	return s
}

func interval(lo, hi *float64, f func(*float64) string) string {
	if lo == nil || hi == nil {
		return "—"
	}
	return f(lo) + " … " + f(hi)
}

func pValue(p *float64) string {
	switch {
	case p == nil:
		return "—"
	case *p < 0.001:
		return "<0.001"
	}
	return strconv.FormatFloat(*p, 'f', 3, 64)
}

func pctLevel(l float64) string { return strconv.FormatFloat(100*l, 'f', -1, 64) + "%" }

func thousands(n int64) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
