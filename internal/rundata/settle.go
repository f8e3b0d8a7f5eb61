package rundata

import (
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
)

// A metric's type is its declaration in any input, whatever the order of the
// inputs (Reader.declare makes two declarations of different types an error;
// without any the metric is a Trend, Reader.TypeOf). An input without Metric
// lines (a filtered k6 output) may come before the input declaring its
// metrics, or k6's inputs before the records that declare theirs: the series
// a metric has before its declaration is read are pending, keeping their
// points in the order read, and settle gives them their type once every input
// was read.

// pending is the points of a series whose metric is not declared yet.
type pending []pendingPoint

// pendingPoint is what the accumulators and the file spans read of a point.
type pendingPoint struct {
	file              int
	unixNano, elapsed int64
	value             float64
	tags              *k6json.TagSet
}

func (q *pending) add(file int, p *k6json.Point) {
	*q = append(*q, pendingPoint{file: file, unixNano: p.Time.UnixNano(), elapsed: int64(p.Elapsed), value: p.Value, tags: p.Tags})
}

// replay calls fn with each point, in the order read.
func (q *pending) replay(metric string, fn func(file int, p *k6json.Point)) {
	for _, pp := range *q {
		p := k6json.Point{Metric: metric, Time: time.Unix(0, pp.unixNano).UTC(), Elapsed: time.Duration(pp.elapsed),
			Value: pp.value, Tags: pp.tags}
		fn(pp.file, &p)
	}
}

// settle gives each pending series its metric's type, now that every input
// was read, and adds its points to it; a series of a type Types does not keep
// is dropped.
func (d *Data) settle(o CollectOptions) {
	for k, s := range d.series {
		if s.pending == nil {
			continue
		}
		typ, _, _ := d.Reader.TypeOf(k.metric)
		if !o.keepsType(typ) {
			delete(d.series, k)
			continue
		}
		q := s.pending
		*s = *newSeries(s.Metric, s.Group, typ, o.Timed)
		q.replay(s.Metric, func(file int, p *k6json.Point) { d.add(s, file, p) })
	}
}
