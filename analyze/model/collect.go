package model

import (
	"slices"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/k6json"
)

// CollectOptions say what Collect keeps.
type CollectOptions struct {
	// Timed keeps each Trend sample's time (16 bytes a sample instead of 8).
	Timed bool
	// Types, when set, keeps only the metrics of these k6 types (a metric
	// without a declaration counts as a Trend).
	Types []k6json.Type
	// Also, when set, is given every point the reader passes of the metrics
	// kept and of those AlsoKeep accepts, in the same pass: e.g. to evaluate
	// checks on the samples a report reads.
	Also     func(p *k6json.Point)
	AlsoKeep func(name string) bool
	// Requests, when set, joins each request's samples (in the same pass;
	// the reader must keep metadata) and is kept as Data.Requests.
	Requests *Requests
}

// Data is every series of one read of the inputs, with the facts about them.
type Data struct {
	Reader *Reader
	// Requests is CollectOptions.Requests, filled.
	Requests *Requests
	series   map[seriesKey]*Series
	// first and last are the times of the first and last kept sample of each
	// input.
	first, last []time.Time
}

type seriesKey struct {
	metric string
	group  int
}

// Collect reads the inputs once and accumulates each kept point in the
// series of its metric and group.
func Collect(r *Reader, o CollectOptions) (*Data, error) {
	d := &Data{Reader: r, Requests: o.Requests, series: map[seriesKey]*Series{},
		first: make([]time.Time, len(r.inputs)), last: make([]time.Time, len(r.inputs))}
	kept := map[string]bool{}
	r.SetKeep(func(name string) bool {
		kept[name] = r.sel.Keeps(name) && o.keepsType(r, name)
		return kept[name] || (o.AlsoKeep != nil && o.AlsoKeep(name)) || (o.Requests != nil && o.Requests.Wants(name))
	})
	// Points come in runs of one metric and group: remember the last series.
	var lastKey seriesKey
	var last *Series
	err := r.Each(func(file int, g *Group, p *k6json.Point) error {
		if o.Also != nil {
			o.Also(p)
		}
		if o.Requests != nil {
			o.Requests.Add(g, p)
		}
		if !kept[p.Metric] {
			return nil
		}
		d.seen(file, p.Time)
		k := seriesKey{p.Metric, g.ID}
		if last == nil || k != lastKey {
			s, ok := d.series[k]
			if !ok {
				typ, _, _ := r.TypeOf(p.Metric)
				s = newSeries(p.Metric, g, typ, o.Timed)
				d.series[k] = s
			}
			lastKey, last = k, s
		}
		last.Add(p)
		return nil
	})
	return d, err
}

func (o CollectOptions) keepsType(r *Reader, name string) bool {
	if len(o.Types) == 0 {
		return true
	}
	typ, _, _ := r.TypeOf(name)
	return slices.Contains(o.Types, typ)
}

func (d *Data) seen(file int, t time.Time) {
	if d.first[file].IsZero() || t.Before(d.first[file]) {
		d.first[file] = t
	}
	if t.After(d.last[file]) {
		d.last[file] = t
	}
}

// FileSpan is the time of the first and the last kept sample of an input.
func (d *Data) FileSpan(file int) (first, last time.Time) { return d.first[file], d.last[file] }

// Last is the time of the latest kept sample of all inputs.
func (d *Data) Last() time.Time {
	var last time.Time
	for _, t := range d.last {
		if t.After(last) {
			last = t
		}
	}
	return last
}

// Span is the time a Counter's per-second rate is taken over: from the
// earliest input's first sample to the latest kept sample (0 if unknown).
func (d *Data) Span() time.Duration {
	first, last := d.Reader.Start(), d.Last()
	if first.IsZero() || !last.After(first) {
		return 0
	}
	return last.Sub(first)
}

// Series returns the series of a metric, in group order (CompareGroups).
func (d *Data) Series(metric string) []*Series {
	var out []*Series
	for k, s := range d.series {
		if k.metric == metric {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *Series) int { return CompareGroups(a.Group, b.Group) })
	return out
}

// Metrics returns the metric names with data, in report order (OrderMetrics).
func (d *Data) Metrics() []string {
	var names []string
	for k := range d.series {
		if !slices.Contains(names, k.metric) {
			names = append(names, k.metric)
		}
	}
	slices.Sort(names)
	return OrderMetrics(names, d.Reader.sel.Metrics)
}

// MetricsOfType returns the metrics of one k6 type with data, in report
// order. A metric without a declaration is taken as a Trend (with a warning).
func (d *Data) MetricsOfType(typ k6json.Type) []string {
	var out []string
	for _, m := range d.Metrics() {
		if t, _ := d.Reader.MetricType(m); t == typ {
			out = append(out, m)
		}
	}
	return out
}

// Unit is the unit of a metric's values: ms for time Trends.
func (d *Data) Unit(metric string) string {
	_, contains := d.Reader.MetricType(metric)
	return contains.Unit()
}
