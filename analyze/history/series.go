package history

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Run is one run of a series: a record and its group.
type Run struct {
	Line   int64 // the record's line in the file
	Record *Record
	Group  *Group
}

// Series is the runs of one group (one --where selection and set of --by
// labels) in time order.
type Series struct {
	Key    string
	Labels map[string]string
	Runs   []Run
	order  rundata.Group
	where  string
}

// SeriesOf splits a history's records into series, in group order
// (model.CompareGroups: concurrency 1, 4, 16), each with its runs in the
// order of their start times (the file's order for equal times).
func SeriesOf(f *File) []*Series {
	byKey := map[string]*Series{}
	var out []*Series
	for i := range f.Records {
		rec := &f.Records[i]
		for j := range rec.Groups {
			g := &rec.Groups[j]
			key := rec.SeriesKey(g)
			s, ok := byKey[key]
			if !ok {
				s = &Series{Key: key, Labels: g.Labels, where: strings.Join(rec.Selection.Where, ",")}
				s.order = rundata.Group{Key: g.Label, Labels: orderedTags(rec.Selection.By, g.Labels)}
				byKey[key] = s
				out = append(out, s)
			}
			s.Runs = append(s.Runs, Run{Line: f.Lines[i], Record: rec, Group: g})
		}
	}
	for _, s := range out {
		slices.SortStableFunc(s.Runs, func(a, b Run) int { return a.Record.Start.Compare(b.Record.Start) })
	}
	slices.SortStableFunc(out, func(a, b *Series) int {
		if c := strings.Compare(a.where, b.where); c != 0 {
			return c
		}
		return rundata.CompareGroups(&a.order, &b.order)
	})
	return out
}

// orderedTags lists a group's labels in --by order.
func orderedTags(by []string, labels map[string]string) []k6json.Tag {
	tags := make([]k6json.Tag, 0, len(labels))
	for _, k := range by {
		if v, ok := labels[k]; ok {
			tags = append(tags, k6json.Tag{Key: k, Value: v})
		}
	}
	return tags
}

// Point is a percentile of one run of a series.
type Point struct {
	Run   int       // its index in Series.Runs
	Time  time.Time // the run's start
	Label string    // the run's label
	Count int64     // the samples of the metric in the run
	// Value is k6's percentile; Lo and Hi its confidence interval (−Inf and
	// +Inf where the run cannot bound a side). All three are NaN when the
	// run did not record the metric or the percentile (Missing).
	Value, Lo, Hi float64
	TooFew        bool // fewer than two samples above the percentile
	Missing       bool
}

// Points returns the N-th percentile (e.g. 99) of a metric in every run of
// the series.
func (s *Series) Points(metric string, n float64) []Point {
	out := make([]Point, len(s.Runs))
	for i, r := range s.Runs {
		pt := Point{Run: i, Time: r.Record.Start, Label: r.Record.Label, Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Missing: true}
		if t := r.Group.Trend(metric); t != nil {
			pt.Count = t.Count
			if p := t.Percentile(n); p != nil {
				pt.Value, pt.TooFew, pt.Missing = p.Value, p.TooFew, false
				pt.Lo, pt.Hi = math.Inf(-1), math.Inf(1)
				if p.CI.Low != nil {
					pt.Lo = *p.CI.Low
				}
				if p.CI.High != nil {
					pt.Hi = *p.CI.High
				}
			}
		}
		out[i] = pt
	}
	return out
}

// Metrics lists the Trend metrics recorded in any run of the series, in
// report order (model.OrderMetrics).
func Metrics(series []*Series) []string {
	seen := map[string]bool{}
	var names []string
	for _, s := range series {
		for _, r := range s.Runs {
			for _, t := range r.Group.Trends {
				if !seen[t.Metric] {
					seen[t.Metric] = true
					names = append(names, t.Metric)
				}
			}
		}
	}
	return rundata.OrderMetrics(names, nil)
}

// Unit is the unit of a metric's values in the series ("ms" for a time
// Trend), from the first run that recorded it.
func Unit(series []*Series, metric string) string {
	for _, s := range series {
		for _, r := range s.Runs {
			if t := r.Group.Trend(metric); t != nil {
				return t.Unit
			}
		}
	}
	return ""
}
