package sweep

import (
	"cmp"
	"slices"

	"github.com/llmstream/xk6-llmstream/analyze/check"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/model"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

// K6JSON reads k6's --out json output (plain or gzip) with analyze/k6json.
type K6JSON struct{}

// Read implements Reader.
func (K6JSON) Read(path string, want Want) (*Reading, error) {
	c := newCollector(want)
	sc := &k6json.Scanner{
		Keep:         c.keep,
		KeepMetadata: true,
		OnMetric: func(m *k6json.Metric) error {
			c.types[m.Name] = m.Type
			return nil
		},
		OnPoint: func(p *k6json.Point) error {
			c.add(p)
			return nil
		},
	}
	if _, err := sc.ScanFile(path, nil); err != nil {
		return nil, err
	}
	return c.close(path), nil
}

// collector accumulates a Reading while a file is scanned.
type collector struct {
	want     Want
	byMetric map[string][]int // stream indices by metric
	match    [][]int8         // by stream, by tag set ID: 0 unknown, 1 in, -1 out
	values   []stats.Values
	data     []check.Data
	types    map[string]k6json.Type
	r        Reading
}

func newCollector(want Want) *collector {
	c := &collector{
		want: want, byMetric: map[string][]int{}, match: make([][]int8, len(want.Streams)),
		values: make([]stats.Values, len(want.Streams)), data: make([]check.Data, len(want.Streams)),
		types: map[string]k6json.Type{},
	}
	streams := make([]model.RequestStream, len(want.Streams))
	for i, st := range want.Streams {
		streams[i] = model.RequestStream{Metric: st.Metric, Tags: st.Tags}
	}
	c.r.Join = model.NewRequests(streams)
	for i, s := range want.Streams {
		c.byMetric[s.Metric] = append(c.byMetric[s.Metric], i)
	}
	return c
}

func (c *collector) keep(metric string) bool {
	return len(c.byMetric[metric]) > 0 || metric == c.want.Drift || metric == MetricDropped ||
		c.r.Join.Wants(metric)
}

func (c *collector) add(p *k6json.Point) {
	switch p.Metric {
	case MetricDropped:
		c.r.Dropped += p.Value
	case c.want.Drift:
		c.r.Drift = append(c.r.Drift, tail.Sample{T: p.Elapsed, V: p.Value})
	}
	c.r.Join.Add(0, nil, p)
	for _, i := range c.byMetric[p.Metric] {
		if !c.matches(i, p.Tags) {
			continue
		}
		d := &c.data[i]
		d.Count++
		d.Sum += p.Value
		d.Last = p.Value
		if p.Value != 0 {
			d.NonZero++
		}
		c.values[i].Add(p.Value)
	}
}

func (c *collector) matches(stream int, ts *k6json.TagSet) bool {
	id := ts.ID()
	m := c.match[stream]
	if id >= len(m) {
		m = append(m, make([]int8, id+1-len(m))...)
		c.match[stream] = m
	}
	if m[id] == 0 {
		m[id] = -1
		if ts.Contains(c.want.Streams[stream].Tags) {
			m[id] = 1
		}
	}
	return m[id] > 0
}

func (c *collector) close(path string) *Reading {
	c.r.Input = path
	c.r.Streams = c.data
	for i, s := range c.want.Streams {
		t, ok := c.types[s.Metric]
		if !ok {
			t = k6json.Trend
		}
		c.r.Streams[i].Type = t
		if t == k6json.Trend {
			c.r.Streams[i].Sorted = c.values[i].Sorted()
		}
	}
	slices.SortFunc(c.r.Drift, func(a, b tail.Sample) int { return cmp.Compare(a.T, b.T) })
	return &c.r
}
