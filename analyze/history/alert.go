package history

import (
	"fmt"
	"math"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// Defaults of Evaluate.
const (
	// DefaultWindow is the trailing window: the last 7 runs (a week of
	// nightly runs).
	DefaultWindow = 7
	// MinBaseline is the fewest earlier runs a run is compared with; before
	// that its status is NoBaseline.
	MinBaseline = 3
	// MinCreepWindow is the fewest earlier runs the creep test looks at.
	MinCreepWindow = 4
	// DefaultLevel is the confidence level of the trend test.
	DefaultLevel = 0.95
)

// DefaultLimits are the limits tested without any: P50, P90 and P99 may not
// get worse by more than 10% with confidence.
var DefaultLimits = []compare.RegressionLimit{
	{Stat: "p50", Max: 0.10, Relative: true},
	{Stat: "p90", Max: 0.10, Relative: true},
	{Stat: "p99", Max: 0.10, Relative: true},
}

// Options are the choices of Evaluate.
type Options struct {
	Window int                       // trailing runs compared with (DefaultWindow when 0)
	Limits []compare.RegressionLimit // percentile limits (p99=10%, p95=50ms) and rate limits (rate=+1pp)
	Level  float64                   // of the trend test and the rate intervals (DefaultLevel when 0)
}

// Status is what Evaluate says of one run.
type Status string

// The statuses.
const (
	NoBaseline   Status = "no baseline"  // fewer than MinBaseline earlier runs
	OK           Status = "ok"           // not worse than the window beyond the limit, with confidence
	Regression   Status = "regression"   // worse beyond the limit, with confidence
	Inconclusive Status = "inconclusive" // cannot be decided: too few samples
)

// Kind says how a regression came.
type Kind string

// The kinds of regression.
const (
	Step  Kind = "step"  // it started at this run: a version change, a new cluster
	Creep Kind = "creep" // it crept in: a monotone trend across the window ("drift" is reserved for within a run: package shape)
)

// Verdict is the test of one limit on one run of a series.
type Verdict struct {
	Series string    `json:"series"`
	Metric string    `json:"metric"`
	Stat   string    `json:"stat"`  // P99, or rate
	Limit  string    `json:"limit"` // as compare.ParseLimit reads it
	Run    int       `json:"run"`   // the run's index in its series
	Line   int64     `json:"line"`  // the record's line in the file
	Label  string    `json:"label"`
	Time   time.Time `json:"time"` // the run's start
	Status Status    `json:"status"`
	Kind   Kind      `json:"kind,omitempty"`
	Window int       `json:"window"` // earlier runs compared with
	// Value is the run's statistic, Low the lower bound of its interval.
	Value *float64 `json:"value"`
	Low   *float64 `json:"low"`
	// Reference is what Low is compared with: the window's pooled upper
	// bound (a step), the oldest window run's upper bound (a creep), or the
	// window's pooled rate (a rate); Threshold is the reference with the
	// limit added.
	Reference *float64 `json:"reference"`
	Threshold *float64 `json:"threshold"`
	// TrendP is the one-sided p-value of the Mann–Kendall test of an upward
	// trend over the window and the run; Slope the Theil–Sen slope per run,
	// relative to the line's value at the window's first run.
	TrendP *float64 `json:"trend_p,omitempty"`
	Slope  *float64 `json:"slope,omitempty"`
	Reason string   `json:"reason"`
	// Needed is the sample count that would decide an inconclusive run.
	Needed int `json:"needed,omitempty"`
}

// Failing reports whether the verdict fails a gate: a regression, or a run
// the gate cannot decide (inconclusive, or no baseline) unless undecided
// runs are allowed. The gate fails closed.
func (v Verdict) Failing(allowInconclusive bool) bool {
	return v.Status == Regression || ((v.Status == Inconclusive || v.Status == NoBaseline) && !allowInconclusive)
}

// Evaluate tests every limit on every run of every series, in series order,
// then limit, metric and run order.
func Evaluate(series []*Series, o Options) []Verdict {
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.Level <= 0 || o.Level >= 1 {
		o.Level = DefaultLevel
	}
	if len(o.Limits) == 0 {
		o.Limits = DefaultLimits
	}
	var out []Verdict
	for _, s := range series {
		for _, l := range o.Limits {
			for _, m := range limitMetrics(s, l) {
				if l.IsRate() {
					out = append(out, evalRate(s, m, l, o)...)
				} else {
					out = append(out, evalPercentile(s, m, l, o)...)
				}
			}
		}
	}
	return out
}

// Latest returns the verdicts on the last run of each series: what a
// scheduled job's gate decides on.
func Latest(series []*Series, vs []Verdict) []Verdict {
	last := map[string]int{}
	for _, s := range series {
		last[s.Key] = len(s.Runs) - 1
	}
	var out []Verdict
	for _, v := range vs {
		if v.Run == last[v.Series] {
			out = append(out, v)
		}
	}
	return out
}

// limitMetrics lists the metrics of a series a limit applies to: the Trends
// for a percentile, the Rates for a rate.
func limitMetrics(s *Series, l compare.RegressionLimit) []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if !seen[name] && l.Applies(name) {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, r := range s.Runs {
		if l.IsRate() {
			for _, rt := range r.Group.Rates {
				add(rt.Metric)
			}
			continue
		}
		for _, t := range r.Group.Trends {
			add(t.Metric)
		}
	}
	return out
}

// threshold is a reference with the limit added.
func threshold(l compare.RegressionLimit, ref float64) float64 {
	if l.Relative {
		return ref * (1 + l.Max)
	}
	return ref + l.Max
}

// newVerdict starts the verdict on run k.
func newVerdict(s *Series, metric string, l compare.RegressionLimit, k int) Verdict {
	r := s.Runs[k]
	stat := l.Stat.Label()
	if l.IsRate() {
		stat = string(compare.RateStat)
	}
	return Verdict{Series: s.Key, Metric: metric, Stat: stat, Limit: l.String(), Run: k, Line: r.Line,
		Label: r.Record.Label, Time: r.Record.Start}
}

func f64(v float64) *float64 { return result.F64(v) }

func pctText(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// isBounded reports whether a point can be tested or used as a reference.
func isBounded(pt Point) bool {
	return !pt.Missing && !pt.TooFew && !math.IsInf(pt.Lo, 0) && !math.IsInf(pt.Hi, 0)
}
