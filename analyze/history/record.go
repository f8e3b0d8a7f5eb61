package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// Schema and Version identify the record format. A record carries both; a
// reader refuses a version newer than Version. Fields may be added within a
// version, never removed or renamed.
const (
	Schema  = "xk6-llmstream/analyze-history/v1"
	Version = 1
)

// Record is one run of a scheduled test.
type Record struct {
	Schema  string `json:"schema"`
	Version int    `json:"version"`
	// Label names the run: a release, a model version, a commit.
	Label string `json:"label"`
	// Start and End are the times of the run's first and last sample.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Inputs are the paths of the k6 JSON files read.
	Inputs []string `json:"inputs"`
	// Selection is what was read; Where and By define the series.
	Selection  result.Selection `json:"selection"`
	Confidence float64          `json:"confidence"`
	Groups     []Group          `json:"groups"`
}

// Group is one group of the run (one series of the history).
type Group struct {
	Label  string            `json:"label"`  // "model=a,scenario=ramp", or "all"
	Labels map[string]string `json:"labels"` // the same, as an object
	Trends []Trend           `json:"trends"`
	Rates  []Rate            `json:"rates"`
}

// Trend is a k6 Trend of one group: its count, extremes and percentiles with
// their confidence intervals, as the summary computed them.
type Trend struct {
	Metric      string              `json:"metric"`
	Unit        string              `json:"unit"`
	Count       int64               `json:"count"`
	Min         *float64            `json:"min"`
	Mean        *float64            `json:"mean"`
	Max         *float64            `json:"max"`
	Percentiles []result.Percentile `json:"percentiles"`
}

// Rate is a k6 Rate of one group: llm_requests_failed (the failure rate),
// llm_slo_met (the goodput rate), or any other.
type Rate struct {
	Metric  string   `json:"metric"`
	Count   int64    `json:"count"`
	NonZero int64    `json:"non_zero"`
	Rate    *float64 `json:"rate"`
}

// FromSummary makes the record of a run from its summary: label names it,
// start and end are the times of its first and last sample. Counters and
// Gauges are left out. A run without any Trend or Rate is an error.
func FromSummary(s *result.Summary, label string, start, end time.Time) (Record, error) {
	rec := Record{Schema: Schema, Version: Version, Label: label, Start: start.UTC(), End: end.UTC(),
		Inputs: []string{}, Selection: s.Selection, Confidence: s.Confidence, Groups: []Group{}}
	for _, in := range s.Inputs {
		rec.Inputs = append(rec.Inputs, in.Path)
	}
	index := map[string]int{}
	group := func(g result.Group) *Group {
		i, ok := index[g.Label]
		if !ok {
			i = len(rec.Groups)
			index[g.Label] = i
			rec.Groups = append(rec.Groups, Group{Label: g.Label, Labels: g.Labels, Trends: []Trend{}, Rates: []Rate{}})
		}
		return &rec.Groups[i]
	}
	for _, m := range s.Metrics {
		for _, g := range m.Groups {
			switch {
			case m.Type == "trend":
				hg := group(g)
				hg.Trends = append(hg.Trends, Trend{Metric: m.Name, Unit: m.Unit, Count: g.Count,
					Min: g.Min, Mean: g.Mean, Max: g.Max, Percentiles: g.Percentiles})
			case m.Type == "rate" && g.NonZero != nil:
				hg := group(g)
				hg.Rates = append(hg.Rates, Rate{Metric: m.Name, Count: g.Count, NonZero: *g.NonZero, Rate: g.Rate})
			}
		}
	}
	if len(rec.Groups) == 0 {
		return rec, fmt.Errorf("history: the run has no Trend or Rate samples to record")
	}
	return rec, nil
}

// SeriesKey names the series a group of a record belongs to: its group label,
// after the --where clauses that selected it ("scenario=ramp: model=a").
func (r *Record) SeriesKey(g *Group) string {
	if len(r.Selection.Where) == 0 {
		return g.Label
	}
	return strings.Join(r.Selection.Where, ",") + ": " + g.Label
}

// Trend returns the group's Trend of a metric, or nil.
func (g *Group) Trend(metric string) *Trend {
	for i := range g.Trends {
		if g.Trends[i].Metric == metric {
			return &g.Trends[i]
		}
	}
	return nil
}

// Percentile returns the trend's N-th percentile, or nil when the run did not
// record it.
func (t *Trend) Percentile(n float64) *result.Percentile {
	for i := range t.Percentiles {
		if t.Percentiles[i].P == n {
			return &t.Percentiles[i]
		}
	}
	return nil
}

// validate checks what a reader needs of a record.
func (r *Record) validate() error {
	switch {
	case r.Schema != Schema && !strings.HasPrefix(r.Schema, "xk6-llmstream/analyze-history/"):
		return fmt.Errorf("not a history record (schema %q, want %q)", r.Schema, Schema)
	case r.Version < 1:
		return fmt.Errorf("record has no version (want 1 to %d)", Version)
	case r.Version > Version:
		return fmt.Errorf("record version %d is newer than this analyze reads (%d): upgrade analyze", r.Version, Version)
	case r.Start.IsZero():
		return fmt.Errorf("record has no start time")
	}
	return r.validateCounts()
}

// validateCounts refuses a count below zero, or more non-zero samples than
// samples, naming the field: no summary writes them.
func (r *Record) validateCounts() error {
	neg := func(field, what string, n int64) error {
		if n < 0 {
			return fmt.Errorf("%s (%s) is %d: want 0 or more", field, what, n)
		}
		return nil
	}
	for gi, g := range r.Groups {
		for ti, t := range g.Trends {
			at := fmt.Sprintf("groups[%d].trends[%d]", gi, ti)
			if err := neg(at+".count", t.Metric, t.Count); err != nil {
				return err
			}
			for pi, p := range t.Percentiles {
				pat, what := fmt.Sprintf("%s.percentiles[%d]", at, pi), t.Metric+" "+p.Name
				for _, f := range []struct {
					name string
					n    int
				}{{"rank", p.Rank}, {"min_samples", p.MinSamples}, {"ci.low_rank", p.CI.LowRank}, {"ci.high_rank", p.CI.HighRank}} {
					if err := neg(pat+"."+f.name, what, int64(f.n)); err != nil {
						return err
					}
				}
			}
		}
		for ri, rt := range g.Rates {
			at := fmt.Sprintf("groups[%d].rates[%d]", gi, ri)
			if err := neg(at+".count", rt.Metric, rt.Count); err != nil {
				return err
			}
			if err := neg(at+".non_zero", rt.Metric, rt.NonZero); err != nil {
				return err
			}
			if rt.NonZero > rt.Count {
				return fmt.Errorf("%s.non_zero (%s) is above its count (%d > %d)", at, rt.Metric, rt.NonZero, rt.Count)
			}
		}
	}
	return nil
}
