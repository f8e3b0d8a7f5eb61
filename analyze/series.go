package main

import (
	"math"
	"sort"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
)

// series holds what is kept of one metric in one group: the values (8 bytes a
// sample) and running aggregates.
type series struct {
	metric  string
	group   *group
	values  stats.Values
	nonZero int64   // samples ≠ 0 (a Rate's "passes")
	sum     float64 // in arrival order, as k6 sums a Counter
	last    float64 // the last value read (a Gauge's value)
	min     float64
	max     float64
	// kinds counts the `error` tag of the non-zero samples (for a Rate such as
	// llm_requests_failed: the error kinds of the failed requests).
	kinds map[string]int64
}

func (s *series) add(p *k6json.Point) {
	if s.values.Len() == 0 {
		s.min, s.max = p.Value, p.Value
	}
	s.values.Add(p.Value)
	s.sum += p.Value
	s.last = p.Value
	s.min = math.Min(s.min, p.Value)
	s.max = math.Max(s.max, p.Value)
	if p.Value != 0 {
		s.nonZero++
		if k, ok := p.Tags.Get("error"); ok && k != "" {
			if s.kinds == nil {
				s.kinds = map[string]int64{}
			}
			s.kinds[k]++
		}
	}
}

type seriesKey struct {
	metric string
	group  int
}

// dataset is every series of a read, with the facts about the inputs.
type dataset struct {
	r      *reader
	series map[seriesKey]*series
	// first and last are the earliest input start and the latest kept sample:
	// the span a Counter's per-second rate is taken over.
	first, last time.Time
}

// collect reads the inputs and keeps each selected point in its series.
func collect(r *reader) (*dataset, error) {
	ds := &dataset{r: r, series: map[seriesKey]*series{}}
	var (
		lastKey seriesKey
		lastS   *series
	)
	err := r.each(func(file int, g *group, p *k6json.Point) error {
		if ds.last.IsZero() || p.Time.After(ds.last) {
			ds.last = p.Time
		}
		k := seriesKey{p.Metric, g.id}
		if lastS == nil || k != lastKey {
			s, ok := ds.series[k]
			if !ok {
				s = &series{metric: p.Metric, group: g}
				ds.series[k] = s
			}
			lastKey, lastS = k, s
		}
		lastS.add(p)
		return nil
	})
	for _, f := range r.files {
		if !f.Start.IsZero() && (ds.first.IsZero() || f.Start.Before(ds.first)) {
			ds.first = f.Start
		}
	}
	return ds, err
}

// ordered returns the series of a metric, in the order of their group labels.
func (ds *dataset) ordered(metric string) []*series {
	var out []*series
	for k, s := range ds.series {
		if k.metric == metric {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].group.key < out[j].group.key })
	return out
}

// metrics returns the metric names with data, sorted.
func (ds *dataset) metrics() []string {
	seen := map[string]bool{}
	var out []string
	for k := range ds.series {
		if !seen[k.metric] {
			seen[k.metric] = true
			out = append(out, k.metric)
		}
	}
	sort.Strings(out)
	return out
}

// span is the time the samples cover, in seconds (0 if unknown).
func (ds *dataset) span() float64 {
	if ds.first.IsZero() || !ds.last.After(ds.first) {
		return 0
	}
	return ds.last.Sub(ds.first).Seconds()
}
