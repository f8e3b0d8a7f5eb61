package plot

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmstream/xk6-llmstream/internal/numfmt"
)

// Series is one ECDF curve: a group or a file.
type Series struct {
	// Name is the legend label; the sample count is appended to it.
	Name string
	// Sorted holds the samples in ascending order, without NaN.
	Sorted []float64
	// Marks are the percentiles to mark on this curve.
	Marks []Mark
}

// Mark is a percentile marked on a curve: a vertical line from the axis up to
// the curve at Value, labelled "Name Value unit".
type Mark struct {
	Name  string  // e.g. "P99"
	P     float64 // the ECDF height the marker reaches, in [0, 1]: 0.99
	Value float64 // the percentile, in the axis unit
}

// ECDF draws the empirical CDF of each series as a post-step line, one colour
// and one legend entry per series, with its marks, on a linear or log value
// axis, optionally with the DKW confidence band. A series with no samples is
// an error naming it.
func ECDF(series []Series, opts ...Option) (*Figure, error) {
	o := makeOptions(opts)
	if len(series) == 0 {
		return nil, ErrNoData
	}
	if o.band < 0 || o.band >= 1 {
		return nil, fmt.Errorf("plot: band level %g is not in (0, 1)", o.band)
	}
	p := newPlot(ecdfTitle(o))
	p.X.Label.Text = o.axisLabel()
	p.Y.Label.Text = "fraction of samples ≤ x"
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = plot.ConstantTicks(probTicks())
	p.Add(plotter.NewGrid())

	f := newFigure(p, o)
	pn := f.panels[0]
	m := &marks{labelled: marked(series) < 2, pn: pn}
	pn.corner = func(c draw.Canvas) *obstacles { return m.obstacles(c, p) }
	if !m.labelled {
		pn.table = &valueTable{}
	}
	var lines []*plotter.Line
	for i, s := range series {
		line, err := f.ecdfCurve(s, i, o)
		if err != nil {
			return nil, err
		}
		lines = append(lines, line)
		m.curves = append(m.curves, line.XYs)
		ls := f.markLabels(s, i, o)
		m.labels = append(m.labels, ls...)
		label := fmt.Sprintf("%s (n=%s)", s.Name, numfmt.Thousands(int64(len(s.Sorted))))
		if s.Name == "" {
			label = fmt.Sprintf("n=%s", numfmt.Thousands(int64(len(s.Sorted))))
		}
		if pn.table != nil {
			col, dashes := seriesStyle(i)
			pn.table.add(label, col, dashes, ls)
		} else {
			pn.add(label, line)
		}
	}
	for _, l := range lines {
		p.Add(l)
	}
	if len(m.labels) > 0 {
		p.Add(m)
		pn.labels = append(pn.labels, m)
	}
	if o.logX {
		ax := newLogAxis(p.X.Min, p.X.Max, maxLabels(o.width))
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = ax.lo, ax.hi
		p.X.Tick.Marker = ax
	} else {
		n := min(maxLinearLabels, maxLabels(o.width))
		p.X.Min, p.X.Max = widenRound(p.X.Min, p.X.Max, n)
		p.X.Tick.Marker = roundTicks{maxN: n}
	}
	return f, nil
}

// marked counts the series with marks.
func marked(series []Series) int {
	n := 0
	for _, s := range series {
		if len(s.Marks) > 0 {
			n++
		}
	}
	return n
}

// markLabels are the i-th series' marks as drawn: each at the ECDF's height
// at its value, labelled with its value; on a log axis a mark ≤ 0 is left
// out with a note.
func (f *Figure) markLabels(s Series, i int, o options) []markLabel {
	col, _ := seriesStyle(i)
	var out []markLabel
	for _, m := range s.Marks {
		if o.logX && m.Value <= 0 {
			f.Notes = append(f.Notes, fmt.Sprintf("%s: %s = %s is ≤ 0 and is not marked on the log axis", s.Name, m.Name, numfmt.Sig4Unit(m.Value, o.unit)))
			continue
		}
		out = append(out, markLabel{Mark: m, color: col, series: i, height: shareAtMost(s.Sorted, m.Value),
			value: numfmt.Sig4Unit(m.Value, o.unit), text: m.Name + " " + numfmt.Sig4Unit(m.Value, o.unit)})
	}
	return out
}

// shareAtMost is the ECDF of sorted at v: the share of samples ≤ v.
func shareAtMost(sorted []float64, v float64) float64 {
	return float64(sort.Search(len(sorted), func(i int) bool { return sorted[i] > v })) / float64(len(sorted))
}

// ecdfTitle is the figure's title: the option's, or the metric's and the
// band's.
func ecdfTitle(o options) string {
	if o.title != "" {
		return o.title
	}
	title := "ECDF"
	if o.metric != "" {
		title = o.metric + " — ECDF"
	}
	if o.band > 0 {
		title += fmt.Sprintf(" (shaded: %g%% DKW confidence band)", 100*o.band)
	}
	return title
}

// ecdfCurve reduces the i-th series to the corners worth drawing and makes
// its line (adding its band to the plot); on a log axis it notes the samples
// ≤ 0 it cannot draw.
func (f *Figure) ecdfCurve(s Series, i int, o options) (*plotter.Line, error) {
	n := len(s.Sorted)
	if n == 0 {
		return nil, fmt.Errorf("plot: series %q has no samples", s.Name)
	}
	extra := make([]float64, len(s.Marks))
	for j, m := range s.Marks {
		extra[j] = m.Value
	}
	pts, err := ReduceECDF(s.Sorted, o.points, extra...)
	if err != nil {
		return nil, fmt.Errorf("plot: series %q: %w", s.Name, err)
	}
	if o.logX {
		var dropped int
		pts, dropped = positiveOnly(pts)
		if dropped > 0 {
			nonPos := sort.Search(n, func(i int) bool { return s.Sorted[i] > 0 })
			if len(pts) == 0 {
				return nil, fmt.Errorf("plot: series %q: all %d samples are ≤ 0 and cannot be drawn on a log axis", s.Name, n)
			}
			f.Notes = append(f.Notes, fmt.Sprintf("%s: %d of %d samples (%.2g%%) are ≤ 0 and lie left of the log axis; the curve starts at %s",
				s.Name, nonPos, n, 100*float64(nonPos)/float64(n), numfmt.Sig4Unit(pts[0].X, o.unit)))
		}
	}
	col, dashes := seriesStyle(i)
	if o.band > 0 {
		eps := math.Sqrt(math.Log(2/(1-o.band)) / (2 * float64(n)))
		f.Plot.Add(&band{pts: pts, eps: eps, color: withAlpha(col, 0x38)})
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, fmt.Errorf("plot: series %q: %w", s.Name, err)
	}
	line.StepStyle = plotter.PostStep
	line.Color = col
	line.Width = curveWidth
	line.Dashes = dashes
	return line, nil
}

// positiveOnly drops the corners at X ≤ 0 for a log axis: the curve then starts
// at the first positive corner, at the height the ECDF had just before it.
func positiveOnly(pts XYs) (XYs, int) {
	i := sort.Search(len(pts), func(i int) bool { return pts[i].X > 0 })
	if i == 0 {
		return pts, 0
	}
	if i == len(pts) {
		return nil, i
	}
	start := plotter.XY{X: pts[i].X, Y: pts[i-1].Y}
	out := append(XYs{start}, pts[i:]...)
	return out, i
}

// XYs is an alias of gonum's point list, to keep signatures short.
type XYs = plotter.XYs

// probTicks are the ECDF axis ticks: labelled every quarter and at 0.9,
// minor ticks every 0.05.
func probTicks() []plot.Tick {
	var ts []plot.Tick
	for i := 0; i <= 20; i++ {
		v := float64(i) / 20
		t := plot.Tick{Value: v}
		switch i {
		case 0, 5, 10, 15, 18, 20:
			t.Label = fmt.Sprintf("%g", v)
		}
		ts = append(ts, t)
	}
	return ts
}
