package main

import (
	"math"
	"slices"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

// seriesKey names the series of one metric in one group.
type seriesKey struct {
	metric string
	group  int
}

// seriesHead is what names a series: its metric and its group.
type seriesHead struct {
	metric string
	group  *group
}

func (h *seriesHead) head() *seriesHead { return h }

// label names the series after its metric: "llm_ttft" or "llm_ttft (model=a)".
func (h *seriesHead) label() string { return h.metric + groupLabel(h.group.key) }

// tally is what every series keeps besides its values: the count, the
// non-zero samples (a Rate's) with the `error` tag of each (for
// llm_requests_failed: the error kinds of the failed requests), the sum in
// arrival order (a Counter's, summed as k6 sums it) and the last value read
// (a Gauge's).
type tally struct {
	count   int64
	nonZero int64
	sum     float64
	last    float64
	kinds   map[string]int64
}

func (t *tally) add(p *k6json.Point) {
	t.count++
	t.sum += p.Value
	t.last = p.Value
	if p.Value != 0 {
		t.nonZero++
		if k, ok := p.Tags.Get("error"); ok && k != "" {
			if t.kinds == nil {
				t.kinds = map[string]int64{}
			}
			t.kinds[k]++
		}
	}
}

// rate is the share of non-zero samples (NaN without samples).
func (t *tally) rate() float64 {
	if t.count == 0 {
		return math.NaN()
	}
	return float64(t.nonZero) / float64(t.count)
}

// series is what summary keeps of one metric in one group: the values (8
// bytes a sample), the tally, and the extremes.
type series struct {
	seriesHead
	tally
	values   stats.Values
	min, max float64
}

func (s *series) add(p *k6json.Point) {
	if s.count == 0 {
		s.min, s.max = p.Value, p.Value
	}
	s.tally.add(p)
	s.values.Add(p.Value)
	s.min = math.Min(s.min, p.Value)
	s.max = math.Max(s.max, p.Value)
}

// timedSeries is what plot, compare and report keep of one metric in one
// group: each sample's value and time since the start of its input (16 bytes
// a sample), and the tally.
type timedSeries struct {
	seriesHead
	tally
	samples []tail.Sample
}

func (s *timedSeries) add(p *k6json.Point) {
	// k6 writes samples in batches: a sample may predate its input's first
	// line by a little. It counts in the first window.
	s.samples = append(s.samples, tail.Sample{T: max(0, p.Elapsed), V: p.Value})
	s.tally.add(p)
}

// sorted returns the values in ascending order (a new slice).
func (s *timedSeries) sorted() []float64 {
	v := make([]float64, len(s.samples))
	for i, x := range s.samples {
		v[i] = x.V
	}
	slices.Sort(v)
	return v
}

// dataset is every series of a summary's read, with the facts about the
// inputs.
type dataset struct {
	r      *reader
	series map[seriesKey]*series
	// first and last are the earliest input start and the latest kept sample:
	// the span a Counter's per-second rate is taken over.
	first, last time.Time
}

// ordered returns the series of a metric, in group order (groupCompare).
func (ds *dataset) ordered(metric string) []*series { return orderedSeries(ds.series, metric) }

// metrics returns the metric names with data, in report order.
func (ds *dataset) metrics() []string { return orderMetrics(metricsOf(ds.series), ds.r.sel.metrics) }

// span is the time the samples cover, in seconds (0 if unknown).
func (ds *dataset) span() float64 {
	if ds.first.IsZero() || !ds.last.After(ds.first) {
		return 0
	}
	return ds.last.Sub(ds.first).Seconds()
}

// timedData is every timed series of a read.
type timedData struct {
	r      *reader
	series map[seriesKey]*timedSeries
	// first and last are the times of the first and last kept sample of each
	// input.
	first, last []time.Time
}

func (td *timedData) seen(file int, t time.Time) {
	if td.first[file].IsZero() || t.Before(td.first[file]) {
		td.first[file] = t
	}
	if t.After(td.last[file]) {
		td.last[file] = t
	}
}

// ordered returns the series of a metric in group order (groupCompare).
func (td *timedData) ordered(metric string) []*timedSeries { return orderedSeries(td.series, metric) }

// metrics returns the metric names with data, in report order.
func (td *timedData) metrics() []string { return orderMetrics(metricsOf(td.series), td.r.sel.metrics) }

// metricsOfType returns the metrics of one k6 type with data, in report
// order. A metric without a declaration is taken as a Trend (with a warning).
func (td *timedData) metricsOfType(typ k6json.Type) []string {
	var out []string
	for _, m := range td.metrics() {
		if t, _ := td.r.metricType(m); t == typ {
			out = append(out, m)
		}
	}
	return out
}

// trendMetrics returns the Trend metrics with data, in report order.
func (td *timedData) trendMetrics() []string { return td.metricsOfType(k6json.Trend) }

// unit is the unit of a metric's values: ms for time Trends.
func (td *timedData) unit(metric string) string {
	_, contains := td.r.metricType(metric)
	return contains.Unit()
}

// span is the time from the earliest to the latest kept sample of all inputs.
func (td *timedData) span() time.Duration {
	var first, last time.Time
	for i := range td.first {
		if !td.first[i].IsZero() && (first.IsZero() || td.first[i].Before(first)) {
			first = td.first[i]
		}
		if td.last[i].After(last) {
			last = td.last[i]
		}
	}
	if first.IsZero() {
		return 0
	}
	return last.Sub(first)
}

// headed is a series of either kind.
type headed interface{ head() *seriesHead }

// orderedSeries returns the series of a metric in group order.
func orderedSeries[S headed](all map[seriesKey]S, metric string) []S {
	var out []S
	for k, s := range all {
		if k.metric == metric {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b S) int { return groupCompare(a.head().group, b.head().group) })
	return out
}

// metricsOf returns the names of the metrics that have a series, sorted.
func metricsOf[S any](all map[seriesKey]S) []string {
	var names []string
	for k := range all {
		if !slices.Contains(names, k.metric) {
			names = append(names, k.metric)
		}
	}
	slices.Sort(names)
	return names
}
