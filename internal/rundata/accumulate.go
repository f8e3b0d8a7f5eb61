package rundata

import (
	"math"
	"slices"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Trend accumulates a Trend's values: 8 bytes a sample, or 16 with their
// times when it was made timed (plot, compare and report need the times for
// the drift view). Sorted closes it.
type Trend struct {
	timed   bool
	n       int64
	values  stats.Values
	samples []stats.Sample
	sorted  []float64
	closed  bool
}

// Add adds a sample. A Trend is not added to after Sorted.
func (t *Trend) Add(p *k6json.Point) {
	t.n++
	if t.timed {
		// k6 writes samples in batches: a sample may predate its input's
		// first line by a little. It counts in the first window.
		t.samples = append(t.samples, stats.Sample{T: max(0, p.Elapsed), V: p.Value})
		return
	}
	t.values.Add(p.Value)
}

// Count is the number of samples.
func (t *Trend) Count() int64 { return t.n }

// Sorted returns the values in ascending order, sorting them on the first
// call. The slice is shared: do not change it.
func (t *Trend) Sorted() []float64 {
	if t.closed {
		return t.sorted
	}
	t.closed = true
	if !t.timed {
		t.sorted = t.values.Sorted()
		return t.sorted
	}
	t.sorted = make([]float64, len(t.samples))
	for i, s := range t.samples {
		t.sorted[i] = s.V
	}
	slices.Sort(t.sorted)
	return t.sorted
}

// Samples are the values with their times since the start of their input, in
// the order read; nil unless the Trend is timed.
func (t *Trend) Samples() []stats.Sample { return t.samples }

// Rate accumulates a Rate: the samples, the non-zero ones, and the `error`
// tag of each non-zero one (for llm_requests_failed: the kinds of the failed
// requests).
type Rate struct {
	N, NonZero int64
	Kinds      map[string]int64 // nil without any
}

// Add adds a sample.
func (r *Rate) Add(p *k6json.Point) {
	r.N++
	if p.Value == 0 {
		return
	}
	r.NonZero++
	if k, ok := p.Tags.Get("error"); ok && k != "" {
		if r.Kinds == nil {
			r.Kinds = map[string]int64{}
		}
		r.Kinds[k]++
	}
}

// Count is the number of samples.
func (r *Rate) Count() int64 { return r.N }

// Value is the share of non-zero samples (NaN without samples).
func (r *Rate) Value() float64 {
	if r.N == 0 {
		return math.NaN()
	}
	return float64(r.NonZero) / float64(r.N)
}

// Counter accumulates a Counter: the sum in arrival order, as k6 sums it.
type Counter struct {
	N   int64
	Sum float64
}

// Add adds a sample.
func (c *Counter) Add(p *k6json.Point) { c.N++; c.Sum += p.Value }

// Count is the number of samples.
func (c *Counter) Count() int64 { return c.N }

// Gauge accumulates a Gauge: the last value read, and the extremes.
type Gauge struct {
	N              int64
	Last, Min, Max float64
}

// Add adds a sample.
func (g *Gauge) Add(p *k6json.Point) {
	if g.N == 0 {
		g.Min, g.Max = p.Value, p.Value
	}
	g.N++
	g.Last = p.Value
	g.Min = math.Min(g.Min, p.Value)
	g.Max = math.Max(g.Max, p.Value)
}

// Count is the number of samples.
func (g *Gauge) Count() int64 { return g.N }

// Accumulator is what every metric type's accumulator does.
type Accumulator interface {
	Add(p *k6json.Point)
	Count() int64
}

// Series is one metric in one group: its name, its group, its k6 type, and
// the accumulator of that type (exactly one of Trend, Rate, Counter and Gauge
// is set once Collect returns).
type Series struct {
	Metric  string
	Group   *Group
	Type    k6json.Type
	Trend   *Trend
	Rate    *Rate
	Counter *Counter
	Gauge   *Gauge
	acc     Accumulator
	// pending holds the points read before the metric's declaration, until
	// Collect settles the series' type.
	pending *pending
}

func newSeries(metric string, g *Group, typ k6json.Type, timed bool) *Series {
	s := &Series{Metric: metric, Group: g, Type: typ}
	switch typ {
	case k6json.Rate:
		s.Rate = &Rate{}
		s.acc = s.Rate
	case k6json.Counter:
		s.Counter = &Counter{}
		s.acc = s.Counter
	case k6json.Gauge:
		s.Gauge = &Gauge{}
		s.acc = s.Gauge
	default:
		s.Type = k6json.Trend
		s.Trend = &Trend{timed: timed}
		s.acc = s.Trend
	}
	return s
}

// Add adds a sample to the accumulator.
func (s *Series) Add(p *k6json.Point) { s.acc.Add(p) }

// Count is the number of samples.
func (s *Series) Count() int64 { return s.acc.Count() }

// Label names the series after its metric: "llm_ttft" or "llm_ttft (model=a)".
func (s *Series) Label() string { return s.Metric + GroupSuffix(s.Group.Key) }
