// Package figures draws the figures of a metric from the model: the ECDF of
// each group with its percentiles marked (as k6 computes them) and the drift
// of P50 and P99 per time window, each with the sentences that go with it —
// the groups' tail diagnosis and drift verdict — and the stage profile of a
// tail's attribution (TailStages). analyze plot, tail and report draw the
// same figures with them.
package figures

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/shape"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Series is one group's ECDF curve with its marked percentiles (k6's).
func Series(g *rundata.Group, sorted []float64, marks []float64) plot.Series {
	ps := plot.Series{Name: g.Name(), Sorted: sorted}
	for _, p := range marks {
		if v, ok := stats.Percentile(sorted, p); ok {
			ps.Marks = append(ps.Marks, plot.Mark{Name: "P" + strconv.FormatFloat(p, 'f', -1, 64), P: p / 100, Value: v})
		}
	}
	return ps
}

// ECDF draws a metric's ECDF, one curve per group, with the marked
// percentiles (k6's), and returns each group's tail diagnosis.
func ECDF(d *rundata.Data, metric string, marks []float64, opts ...plot.Option) (*plot.Figure, []string, error) {
	var series []plot.Series
	var sentences []string
	for _, s := range d.Series(metric) {
		v := s.Trend.Sorted()
		series = append(series, Series(s.Group, v, marks))
		sentences = append(sentences, shape.Diagnose(s.Label(), v, shape.Unit(d.Unit(metric))).Sentence)
	}
	f, err := plot.ECDF(series, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", metric, err)
	}
	return f, sentences, nil
}

// driftPercents are the percentiles drawn per time window.
var driftPercents = []struct {
	name string
	get  func(shape.Window) float64
}{
	{"P50", func(w shape.Window) float64 { return w.P50 }},
	{"P99", func(w shape.Window) float64 { return w.P99 }},
}

// Drift draws a metric's P50 and P99 per time window of width, one colour
// per group, and returns each group's drift verdict and its windows (by group
// key). A width shape.Windows rejects is a model.InputError.
func Drift(d *rundata.Data, metric string, width time.Duration, opts ...plot.Option) (*plot.Figure, []string, map[string][]shape.Window, error) {
	var series []plot.DriftSeries
	var sentences []string
	windows := map[string][]shape.Window{}
	for _, s := range d.Series(metric) {
		ws, err := shape.Windows(s.Trend.Samples(), width)
		if err != nil {
			return nil, nil, nil, rundata.Errorf("--window: %v", err)
		}
		windows[s.Group.Key] = ws
		ds := plot.DriftSeries{Name: s.Group.Name()}
		for _, dp := range driftPercents {
			pc := plot.DriftPercentile{Name: dp.name}
			for _, w := range ws {
				pc.Steps = append(pc.Steps, plot.Step{Start: w.Start, End: w.End, Value: dp.get(w)})
			}
			ds.Percentiles = append(ds.Percentiles, pc)
		}
		series = append(series, ds)
		sentences = append(sentences, shape.Drift(s.Label(), s.Trend.Samples(), shape.Unit(d.Unit(metric))).Sentence)
	}
	f, err := plot.Drift(series, opts...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", metric, err)
	}
	return f, sentences, windows, nil
}

// File names a figure's PNG in a report: the metric name made safe
// (SafeName) and the kind.
func File(metric, kind string) string {
	return SafeName(metric) + "-" + kind + ".png"
}

// SafeName is a metric name as a part of a file name: each character other
// than an ASCII letter, digit, _ and - replaced by _, so that no '/', '..'
// or other character a file system treats specially survives. Every file
// analyze names after a metric goes through it.
func SafeName(metric string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, metric)
}

// MinWindows is the fewest windows a drift figure should have: a run shorter
// than MinWindows default windows gets a window chosen from its length.
const MinWindows = 6

// Window is the drift window for a run of the given span when none is asked
// for: def when the span holds MinWindows of it, else the largest of 1, 2,
// 5 × 10ᵏ ms that cuts the span into at least 10 windows (1 ms at least).
// An 11 s run gets 1 s windows, a 30 s run 2 s, a 59 s run 5 s.
func Window(span, def time.Duration) time.Duration {
	if span <= 0 || span >= MinWindows*def {
		return def
	}
	w := time.Millisecond
	for k := time.Millisecond; k <= def; k *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if c := m * k; c <= def && span/c >= 10 {
				w = c
			}
		}
	}
	return w
}

// LongTail reports whether a metric's ECDF is better read on a log value
// axis: some group's largest value is more than LongTailRatio times its
// median (k6's), so that on a linear axis the bulk of the curve is squashed
// into the left fraction of the figure. It returns that ratio.
func LongTail(d *rundata.Data, metric string) (bool, float64) {
	worst := 0.0
	for _, s := range d.Series(metric) {
		v := s.Trend.Sorted()
		if p50, ok := stats.Percentile(v, 50); ok && p50 > 0 && len(v) > 0 {
			worst = max(worst, v[len(v)-1]/p50)
		}
	}
	return worst > LongTailRatio, worst
}

// LongTailRatio is the max/P50 ratio above which LongTail holds.
const LongTailRatio = 10

// TailStages draws the stage profile of a tail's attribution: the mean time
// of each stage in the median requests and in the tail, one stacked bar each.
func TailStages(res *tail.Result, opts ...plot.Option) (*plot.Figure, error) {
	p := res.Profile
	pc := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	bars := []plot.StageBar{
		{Label: fmt.Sprintf("median requests (p%s–p%s), n=%d", pc(p.BandLo), pc(p.BandHi), p.Median.Requests), Values: p.Median.StageMeanMS},
		{Label: fmt.Sprintf("tail requests (> p%s), n=%d", pc(res.Tail), p.Tail.Requests), Values: p.Tail.StageMeanMS},
	}
	opts = append([]plot.Option{plot.Title("Where the TTFT tail comes from: mean time per stage")}, opts...)
	f, err := plot.Stages(tail.StageNames[:], bars, opts...)
	if err != nil {
		return nil, fmt.Errorf("stage profile: %w", err)
	}
	return f, nil
}

// TailStagesFile is the stage profile's PNG in a report.
var TailStagesFile = File(metrics.TTFT, "stages")
