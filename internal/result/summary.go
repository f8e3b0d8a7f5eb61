package result

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/shape"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// DefaultMaxFailureRate is the share of failed requests above which a
// summary warns.
const DefaultMaxFailureRate = 0.05

// Options are the statistical choices of a summary.
type Options struct {
	Stats stats.Options
	// MaxFailureRate: warn when the share of failed requests (metrics.RequestsFailed)
	// is above it.
	MaxFailureRate float64
	// Throughput measures Data.Requests, when they were joined.
	Throughput ThroughputOptions
}

// DefaultOptions are the summary's defaults.
func DefaultOptions() Options {
	return Options{Stats: stats.DefaultOptions(), MaxFailureRate: DefaultMaxFailureRate}
}

// Summarize computes the statistics of every series, metrics in report order
// and groups in group order.
func Summarize(d *rundata.Data, o Options) *Summary {
	r := d.Reader
	rep := &Summary{
		Schema:     SummarySchema,
		Inputs:     Inputs(r),
		Selection:  SelectionOf(r.Selection()),
		Confidence: o.Stats.Confidence,
		Metrics:    []Metric{},
		Warnings:   []string{},
		Alerts:     []string{},
	}
	sel := r.Selection()
	for _, name := range d.Metrics() {
		typ, contains := r.MetricType(name)
		m := Metric{Name: name, Type: typ.String(), Contains: contains.String(), Unit: contains.Unit()}
		// A metric read only beside the selection (the client's health with
		// --metric llm_ttft) keeps its notes under its table, not in the
		// warnings: they are not about what the user asked.
		warn := selected(sel, name)
		var few []fewSamples // the groups with too few samples, for one warning
		var notes []string   // the groups' other notes
		for _, s := range d.Series(name) {
			g := Group{Label: s.Group.Key, Labels: s.Group.LabelMap(), Count: s.Count()}
			var fs *fewSamples
			switch {
			case s.Trend != nil:
				fs = trendGroup(&g, s, contains.Unit(), o.Stats)
				if fs != nil {
					fs.label = s.Label()
					few = append(few, *fs)
				}
			case s.Rate != nil:
				rate := s.Rate.Value()
				g.Rate, g.NonZero, g.ErrorKinds = &rate, &s.Rate.NonZero, s.Rate.Kinds
				if name == metrics.RequestsFailed && rate > o.MaxFailureRate {
					g.Notes = append(g.Notes, fmt.Sprintf("%s of requests failed, above %s", numfmt.Percent(rate), numfmt.Percent(o.MaxFailureRate)))
					w := fmt.Sprintf("%s: %s of %d requests failed (above %s): the latency figures describe only the requests that succeeded",
						s.Label(), numfmt.Percent(rate), g.Count, numfmt.Percent(o.MaxFailureRate))
					rep.Warnings, rep.Alerts = append(rep.Warnings, w), append(rep.Alerts, w)
				}
			case s.Counter != nil:
				g.Sum = F64(s.Counter.Sum)
				if span := d.GroupSpan(s.Group).Seconds(); span > 0 {
					g.PerSecond = F64(s.Counter.Sum / span)
				}
			case s.Gauge != nil:
				g.Value, g.Min, g.Max = F64(s.Gauge.Last), F64(s.Gauge.Min), F64(s.Gauge.Max)
			}
			if name != metrics.RequestsFailed && warn {
				for _, n := range g.Notes {
					if fs != nil && n == fs.note {
						continue // said once for the metric, below
					}
					notes = append(notes, fmt.Sprintf("%s: %s", s.Label(), n))
				}
			}
			m.Groups = append(m.Groups, g)
		}
		if w := fewWarning(name, few); w != "" && warn {
			rep.Warnings = append(rep.Warnings, w)
		}
		rep.Warnings = append(rep.Warnings, notes...)
		rep.Metrics = append(rep.Metrics, m)
	}
	rep.clientHealth(d, selected(sel, metrics.ClientLag))
	rep.cacheHits(d)
	rep.sendLag(d)
	rep.costs(d)
	rep.requests(d, o)
	return rep
}

// requests adds what the per-request records give: the throughput, and a
// warning naming the files of an older release, whose request ids join
// requests within each file only.
func (rep *Summary) requests(d *rundata.Data, o Options) {
	if d.Requests == nil {
		return
	}
	rep.Throughput = Throughputs(d.Requests, o.Throughput)
	if legacy := d.Requests.LegacyFiles; len(legacy) > 0 {
		var names []string
		for _, f := range legacy {
			names = append(names, d.Reader.Inputs()[f].Label)
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("request ids of %s are of an older release (VU-sequence, the same in every run): their requests are joined within each file only",
			strings.Join(names, ", ")))
	}
}

// trendGroup fills a Trend group: extremes, mean, percentiles with their
// intervals, the tail diagnosis, and notes on percentiles that rest on too
// few samples or whose interval is open or wide. Too few samples is one
// note, listing the percentiles it affects; it is returned (nil when none)
// so that the warnings say it once per metric.
func trendGroup(g *Group, s *rundata.Series, unit string, o stats.Options) *fewSamples {
	sorted := s.Trend.Sorted()
	sum := stats.Summarize(sorted, o)
	g.Min, g.Mean, g.Max = F64(sum.Min), F64(sum.Mean), F64(sum.Max)
	g.Tail = tailOf(shape.Diagnose(s.Label(), sorted, shape.Unit(unit)))
	var few, open, all, wide []string
	need, needBy := 0, ""
	for _, p := range sum.Percentiles {
		g.Percentiles = append(g.Percentiles, percentileOf(p))
		switch {
		case p.TooFew:
			few = append(few, p.Name)
			all = append(all, p.Name)
			if p.MinSamples >= need {
				need, needBy = p.MinSamples, p.Name
			}
		case !p.CI.Bounded():
			open = append(open, p.Name)
			all = append(all, p.Name)
		case p.Wide:
			wide = append(wide, fmt.Sprintf("%s %.0f%%", p.Name, 100*p.RelWidth))
		}
	}
	var fs *fewSamples
	if len(all) > 0 {
		var why []string
		if len(few) > 0 {
			why = append(why, fmt.Sprintf("%s %s on fewer than %d samples above %s (%s needs %d)",
				strings.Join(few, ", "), plural(len(few), "rests", "rest"), o.MinAbove, plural(len(few), "it", "them"), needBy, need))
		}
		if len(open) > 0 {
			why = append(why, fmt.Sprintf("%s %s no %g%% confidence interval", strings.Join(open, ", "), plural(len(open), "has", "have"), 100*o.Confidence))
		}
		fs = &fewSamples{stats: all, count: int64(sum.Count),
			note: fmt.Sprintf("too few samples (%d) for %s: %s", sum.Count, strings.Join(all, ", "), strings.Join(why, "; "))}
		g.Notes = append(g.Notes, fs.note)
	}
	if len(wide) > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("confidence intervals wider than %.0f%% of the value: %s", 100*o.MaxRelWidth, strings.Join(wide, ", ")))
	}
	return fs
}

// fewSamples is a Trend group's "too few samples" note and the statistics
// it affects.
type fewSamples struct {
	label string // the series' label: "llm_ttft (model=a)"
	note  string
	stats []string
	count int64
}

// fewWarning is a metric's one "too few samples" warning: the group's note
// when one group has too few samples, else the statistics affected in any
// group and each group's count.
func fewWarning(metric string, few []fewSamples) string {
	switch len(few) {
	case 0:
		return ""
	case 1:
		return few[0].label + ": " + few[0].note
	}
	var stats, counts []string
	for _, f := range few {
		for _, st := range f.stats {
			if !slices.Contains(stats, st) {
				stats = append(stats, st)
			}
		}
		_, group, _ := strings.Cut(f.label, " (")
		counts = append(counts, fmt.Sprintf("%s %d", strings.TrimSuffix(group, ")"), f.count))
	}
	return fmt.Sprintf("%s: too few samples for %s in %d groups (%s samples); the notes under its table say which in each group",
		metric, strings.Join(stats, ", "), len(few), strings.Join(counts, ", "))
}

// selected reports whether the user's selection names a metric (or, with
// none named, takes every llm_* metric).
func selected(sel rundata.Selection, name string) bool {
	if len(sel.Metrics) == 0 {
		return strings.HasPrefix(name, metrics.Prefix)
	}
	return slices.Contains(sel.Metrics, name)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func percentileOf(p stats.PercentileStat) Percentile {
	return Percentile{
		Name: p.Name, P: p.P, Value: p.Value, NearestRank: p.NearestRank, Rank: p.Rank,
		CI: CI{Low: F64(p.CI.Lo), High: F64(p.CI.Hi), LowRank: p.CI.LoRank, HighRank: p.CI.HiRank,
			Coverage: p.CI.Coverage},
		MinSamples: p.MinSamples, TooFew: p.TooFew, RelWidth: F64(p.RelWidth), Wide: p.Wide,
	}
}

// tailOf is a diagnosis in the summary's JSON schema.
func tailOf(d shape.Diagnosis) *Tail {
	t := &Tail{Shape: string(d.Shape), LongTail: d.LongTail, P99P50: F64(d.RatioP99P50), P999P99: F64(d.RatioP999P99),
		LongTailRatio: d.LongTailRatio, ExtremeRatio: d.ExtremeRatio, Sentence: d.Sentence}
	if w := d.Wall; w != nil {
		t.Cliff = &Cliff{At: w.At, Low: w.Lo, High: w.Hi, Share: w.Share, Above: w.Above}
	}
	if g := d.Gap; g != nil {
		t.Gap = &Gap{Low: g.Lo, High: g.Hi, Below: g.Below, Above: g.Above}
	}
	return t
}

// F64 returns a pointer to v, or nil for ±Inf and NaN (null in JSON).
func F64(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

// Metric returns the named metric of the summary, or nil.
func (s *Summary) Metric(name string) *Metric {
	for i := range s.Metrics {
		if s.Metrics[i].Name == name {
			return &s.Metrics[i]
		}
	}
	return nil
}
