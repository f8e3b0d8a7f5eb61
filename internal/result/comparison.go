package result

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Side is one side of a comparison: one or more inputs, read (timed) into
// one population.
type Side struct {
	Label string // the side's name in the output: "baseline", or --labels
	Data  *rundata.Data
}

// CompareOptions are the statistical choices of a comparison.
type CompareOptions struct {
	Level     float64
	Seed      uint64
	Resamples int
	Stats     []compare.Stat // the Trend statistics compared
	// AllowInconclusive accepts limits that cannot be decided.
	AllowInconclusive bool
}

// Compare compares every Trend and Rate metric and group the two sides
// share, and tests the limits on them. A limit that names no compared metric,
// or a metric of the other kind, is an InputError.
func Compare(base, cand Side, sel rundata.Selection, limits []compare.RegressionLimit, o CompareOptions) (*Comparison, error) {
	rep := &Comparison{Schema: CompareSchema, Selection: SelectionOf(sel), Metrics: []CompareMetric{}, Rates: []CompareRate{},
		Limits: []LimitResult{}, Warnings: []string{}, Confidence: o.Level, Resamples: o.Resamples, Seed: o.Seed}
	rep.Baseline, rep.BaselineFiles = Merged(base.Data.Reader, base.Label), Inputs(base.Data.Reader)
	rep.Candidate, rep.CandidateFiles = Merged(cand.Data.Reader, cand.Label), Inputs(cand.Data.Reader)
	b, c := base.Data, cand.Data
	trends := rep.shared(b.MetricsOfType(k6json.Trend), c.MetricsOfType(k6json.Trend))
	rates := rep.shared(b.MetricsOfType(k6json.Rate), c.MetricsOfType(k6json.Rate))
	if len(trends)+len(rates) == 0 {
		return nil, rundata.Errorf("the baseline and the candidate share no Trend or Rate metric with samples (baseline: %s; candidate: %s)",
			listOrNone(b.Metrics()), listOrNone(c.Metrics()))
	}
	if err := checkLimits(limits, trends, rates); err != nil {
		return nil, err
	}
	used := make([]bool, len(limits))
	for _, name := range trends {
		if err := rep.compareTrend(name, b, c, limits, used, o); err != nil {
			return nil, err
		}
	}
	for _, name := range rates {
		if err := rep.compareRate(name, b, c, limits, used, o.Level); err != nil {
			return nil, err
		}
	}
	for i, l := range limits {
		if !used[i] { // only a limit without a metric gets here
			kind := "Trend"
			if l.IsRate() {
				kind = "Rate"
			}
			return nil, rundata.Errorf("--max-regression %s: no %s metric was compared in both runs", l, kind)
		}
	}
	rep.closeGates(o.AllowInconclusive)
	for _, l := range rep.Limits {
		if l.Untested != "" {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("--max-regression %s on %s: not tested: %s", l.Limit, l.Metric+rundata.GroupSuffix(l.Group), l.Untested))
		}
	}
	return rep, nil
}

// checkLimits makes sure each limit that names a metric names a compared one
// of its kind.
func checkLimits(limits []compare.RegressionLimit, trends, rates []string) error {
	for _, l := range limits {
		switch {
		case l.Metric == "":
		case l.IsRate() && slices.Contains(trends, l.Metric):
			return rundata.Errorf("--max-regression %s: %s is a Trend; limit a percentile or avg (e.g. %s:p99=10%%)", l, l.Metric, l.Metric)
		case !l.IsRate() && slices.Contains(rates, l.Metric):
			return rundata.Errorf("--max-regression %s: %s is a Rate; limit its rate in percentage points (e.g. %s:rate=+1pp)", l, l.Metric, l.Metric)
		case !slices.Contains(trends, l.Metric) && !slices.Contains(rates, l.Metric):
			return rundata.Errorf("--max-regression %s: no compared metric is named %s (compared: %s)", l, l.Metric, strings.Join(append(trends, rates...), ", "))
		}
	}
	return nil
}

// compareTrend compares a Trend's groups and tests the Trend limits that
// apply to it.
func (rep *Comparison) compareTrend(name string, base, cand *rundata.Data, limits []compare.RegressionLimit, used []bool, o CompareOptions) error {
	opts := []compare.Option{compare.Level(o.Level), compare.Seed(o.Seed), compare.Resamples(o.Resamples), compare.Stats(o.Stats...)}
	cm := CompareMetric{Name: name, Unit: base.Unit(name)}
	for _, p := range rep.sharedGroups(name, base, cand) {
		key := p.base.Group.Key
		res, err := compare.Compare(p.base.Trend.Sorted(), p.cand.Trend.Sorted(), opts...)
		if err != nil {
			return fmt.Errorf("%s: %w", p.base.Label(), err)
		}
		g := CompareGroup{Label: key, Labels: p.base.Group.LabelMap(), Baseline: res.NBase, Candidate: res.NCand,
			KSD: F64(res.KS.D), KSP: F64(res.KS.P), Verdict: string(res.Verdict)}
		for _, ch := range res.Changes {
			g.Changes = append(g.Changes, Change{Stat: string(ch.Stat), Baseline: F64(ch.Base), Candidate: F64(ch.Cand),
				Delta: F64(ch.Delta), DeltaLow: F64(ch.Lo), DeltaHigh: F64(ch.Hi), Rel: F64(ch.Rel), RelLow: F64(ch.RelLo), RelHigh: F64(ch.RelHi),
				Verdict: string(ch.Verdict)})
		}
		cm.Groups = append(cm.Groups, g)
		for li, l := range limits {
			if !l.IsRate() && limitApplies(l, name) {
				used[li] = true
				lr, lo, hi := evalLimit(l, name, key, res)
				judgeLimit(&lr, int64(min(res.NBase, res.NCand)), lo, hi)
				rep.Limits = append(rep.Limits, lr)
			}
		}
	}
	rep.Metrics = append(rep.Metrics, cm)
	return nil
}

// limitApplies tells whether a Trend limit is tested on a metric: a limit
// that names it, or a bare limit (p99=10%) on any compared Trend but
// llm_client_lag, the client's own health, which says whether the figures
// can be trusted rather than how the system under test performed (name it,
// llm_client_lag:p99=10%, to limit it).
func limitApplies(l compare.RegressionLimit, name string) bool {
	if l.Metric == "" && name == metrics.ClientLag {
		return false
	}
	return l.Applies(name)
}

// compareRate compares a Rate's groups and tests the rate limits that apply
// to it.
func (rep *Comparison) compareRate(name string, base, cand *rundata.Data, limits []compare.RegressionLimit, used []bool, level float64) error {
	lower := compare.RateLowerIsBetter(name)
	cr := CompareRate{Name: name, LowerIsBetter: lower}
	for _, p := range rep.sharedGroups(name, base, cand) {
		b, c, key := p.base.Rate, p.cand.Rate, p.base.Group.Key
		ch, err := compare.CompareRates(compare.Proportion{NonZero: b.NonZero, Count: b.N},
			compare.Proportion{NonZero: c.NonZero, Count: c.N}, level, lower)
		if err != nil {
			return fmt.Errorf("%s: %w", p.base.Label(), err)
		}
		cr.Groups = append(cr.Groups, RateGroup{Label: key, Labels: p.base.Group.LabelMap(),
			Baseline:  RateSide{Count: b.N, NonZero: b.NonZero, Rate: ch.Base.Rate()},
			Candidate: RateSide{Count: c.N, NonZero: c.NonZero, Rate: ch.Cand.Rate()},
			Delta:     ch.Delta, DeltaLow: ch.Lo, DeltaHigh: ch.Hi, Verdict: string(ch.Verdict)})
		for li, l := range limits {
			if l.IsRate() && l.Applies(name) {
				used[li] = true
				lr := LimitResult{Limit: l.String(), Metric: name, Group: key, Stat: string(l.Stat),
					Change: F64(ch.Delta), Low: F64(ch.Lo), High: F64(ch.Hi), Rule: l}
				worseLo, worseHi := ch.Lo, ch.Hi
				if !lower {
					worseLo, worseHi = -ch.Hi, -ch.Lo
				}
				judgeLimit(&lr, min(b.N, c.N), worseLo, worseHi)
				rep.Limits = append(rep.Limits, lr)
			}
		}
	}
	rep.Rates = append(rep.Rates, cr)
	return nil
}

// shared returns the metrics both sides have, and warns about the others.
func (rep *Comparison) shared(base, cand []string) []string {
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
type pair struct{ base, cand *rundata.Series }

// sharedGroups returns a metric's series in the groups both sides have, in
// group order, and warns about the others.
func (rep *Comparison) sharedGroups(metric string, base, cand *rundata.Data) []pair {
	bs, cs := map[string]*rundata.Series{}, map[string]*rundata.Series{}
	var gs []*rundata.Group
	for _, s := range base.Series(metric) {
		bs[s.Group.Key] = s
		gs = append(gs, s.Group)
	}
	for _, s := range cand.Series(metric) {
		cs[s.Group.Key] = s
		if bs[s.Group.Key] == nil {
			gs = append(gs, s.Group)
		}
	}
	slices.SortStableFunc(gs, rundata.CompareGroups)
	var pairs []pair
	for _, g := range gs {
		p := pair{bs[g.Key], cs[g.Key]}
		if p.base == nil || p.cand == nil {
			where := "baseline"
			if p.base == nil {
				where = "candidate"
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s (%s) is only in the %s: not compared", metric, g.Key, where))
			continue
		}
		pairs = append(pairs, p)
	}
	return pairs
}

// evalLimit tests a Trend limit on a group's comparison, and returns the
// bounds of the change (relative or absolute, as the limit is): NaN when
// it is untested.
func evalLimit(l compare.RegressionLimit, metric, group string, res compare.Result) (LimitResult, float64, float64) {
	lr := LimitResult{Limit: l.String(), Metric: metric, Group: group, Stat: string(l.Stat), Rule: l}
	nan := math.NaN()
	for _, ch := range res.Changes {
		if ch.Stat != l.Stat {
			continue
		}
		if ch.Verdict == compare.TooFew {
			lr.Untested = fmt.Sprintf("too few samples for %s (%d and %d; %d needed in each)", ch.Stat.Label(), res.NBase, res.NCand, ch.Stat.MinN())
			return lr, nan, nan
		}
		if l.Relative {
			lr.Change, lr.Low, lr.High = F64(ch.Rel), F64(ch.RelLo), F64(ch.RelHi)
			if math.IsNaN(ch.RelLo) {
				lr.Untested = fmt.Sprintf("the baseline's %s is not positive, so a relative change is undefined", ch.Stat.Label())
				return lr, nan, nan
			}
			return lr, ch.RelLo, ch.RelHi
		}
		lr.Change, lr.Low, lr.High = F64(ch.Delta), F64(ch.Lo), F64(ch.Hi)
		return lr, ch.Lo, ch.Hi
	}
	lr.Untested = "statistic not compared"
	return lr, nan, nan
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
