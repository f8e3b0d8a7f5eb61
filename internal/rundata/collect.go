package rundata

import (
	"slices"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
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
		kept[name] = r.sel.Keeps(name) && !o.dropsType(r, name)
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
			o.Requests.Add(file, g, p)
		}
		if !kept[p.Metric] {
			return nil
		}
		k := seriesKey{p.Metric, g.ID}
		if last == nil || k != lastKey {
			s := d.seriesFor(k, g, o)
			if s == nil {
				kept[p.Metric] = false
				return nil
			}
			lastKey, last = k, s
		}
		d.add(last, file, p)
		return nil
	})
	d.settle(o)
	return d, err
}

// seriesFor returns the series of a metric in a group, made on its first
// point: of the metric's declared type, or pending when the metric is not
// declared yet (settle types it). It is nil when Types drops the type.
func (d *Data) seriesFor(k seriesKey, g *Group, o CollectOptions) *Series {
	if s, ok := d.series[k]; ok {
		return s
	}
	if o.dropsType(d.Reader, k.metric) {
		return nil
	}
	var s *Series
	if typ, _, declared := d.Reader.TypeOf(k.metric); declared {
		s = newSeries(k.metric, g, typ, o.Timed)
	} else {
		s = &Series{Metric: k.metric, Group: g, pending: &pending{}}
	}
	d.series[k] = s
	return s
}

// add adds a point to a series, or keeps it for settle while the series is
// pending.
func (d *Data) add(s *Series, file int, p *k6json.Point) {
	if s.pending != nil {
		s.pending.add(file, p)
		return
	}
	d.seen(file, p.Time)
	s.Add(p)
}

// dropsType reports whether a metric is declared with a type Types does not
// keep. A metric not declared yet is not dropped: a later input may declare
// it.
func (o CollectOptions) dropsType(r *Reader, name string) bool {
	typ, _, declared := r.TypeOf(name)
	return declared && !o.keepsType(typ)
}

// keepsType reports whether Types keeps a metric of the type.
func (o CollectOptions) keepsType(typ k6json.Type) bool {
	return len(o.Types) == 0 || slices.Contains(o.Types, typ)
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
