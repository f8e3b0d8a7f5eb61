package main

import (
	"slices"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/k6json"
)

// seriesIndex finds the series of a metric in a group, making it on first
// use. Points come in runs of one metric and group, so it remembers the last
// series it returned.
type seriesIndex[S any] struct {
	all     map[seriesKey]*S
	newS    func(seriesHead) *S
	lastKey seriesKey
	last    *S
}

func newSeriesIndex[S any](newS func(seriesHead) *S) *seriesIndex[S] {
	return &seriesIndex[S]{all: map[seriesKey]*S{}, newS: newS}
}

func (ix *seriesIndex[S]) get(p *k6json.Point, g *group) *S {
	k := seriesKey{p.Metric, g.id}
	if ix.last != nil && k == ix.lastKey {
		return ix.last
	}
	s, ok := ix.all[k]
	if !ok {
		s = ix.newS(seriesHead{metric: p.Metric, group: g})
		ix.all[k] = s
	}
	ix.lastKey, ix.last = k, s
	return s
}

// collect reads the inputs once and keeps each selected point in its series
// (summary: 8 bytes a sample).
func collect(r *reader) (*dataset, error) {
	ix := newSeriesIndex(func(h seriesHead) *series { return &series{seriesHead: h} })
	ds := &dataset{r: r, series: ix.all}
	err := r.each(func(_ int, g *group, p *k6json.Point) error {
		if ds.last.IsZero() || p.Time.After(ds.last) {
			ds.last = p.Time
		}
		ix.get(p, g).add(p)
		return nil
	})
	ds.first = r.start()
	return ds, err
}

// collectTimed reads the inputs once and keeps each selected point with its
// time (plot, compare, report: 16 bytes a sample), of the metrics declared as
// one of types (a metric without a declaration counts as a Trend).
func collectTimed(r *reader, types ...k6json.Type) (*timedData, error) {
	keep := func(name string) bool {
		if !r.sel.keeps(name) {
			return false
		}
		typ := k6json.Trend
		if m, ok := r.decls[name]; ok && m.Type != k6json.TypeUnknown {
			typ = m.Type
		}
		return slices.Contains(types, typ)
	}
	return collectTimedWith(r, keep, nil, nil)
}

// collectTimedWith reads the inputs once: points of the metrics keep accepts
// go into the timed series; when also is set, every point the reader passes
// of the metrics alsoKeep accepts goes to it too (e.g. to an evaluator's add,
// to evaluate checks in the same pass).
func collectTimedWith(r *reader, keep, alsoKeep func(name string) bool, also func(p *k6json.Point)) (*timedData, error) {
	ix := newSeriesIndex(func(h seriesHead) *timedSeries { return &timedSeries{seriesHead: h} })
	td := &timedData{r: r, series: ix.all,
		first: make([]time.Time, len(r.inputs)), last: make([]time.Time, len(r.inputs))}
	kept := map[string]bool{}
	r.keep = func(name string) bool {
		kept[name] = keep(name)
		return kept[name] || (alsoKeep != nil && alsoKeep(name))
	}
	err := r.each(func(file int, g *group, p *k6json.Point) error {
		if also != nil {
			also(p)
		}
		if !kept[p.Metric] {
			return nil
		}
		td.seen(file, p.Time)
		ix.get(p, g).add(p)
		return nil
	})
	return td, err
}
