package plot

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TrendPoint is a percentile of one run: its value and confidence interval.
// A NaN Value (the run did not record it) breaks the line; a Lo or Hi that is
// infinite or NaN (the run could not bound it) leaves a gap in the band.
type TrendPoint struct {
	Time          time.Time
	Value, Lo, Hi float64
	// Alert rings the point: the run was flagged.
	Alert bool
}

// TrendLine is one percentile of a series over the runs.
type TrendLine struct {
	Name   string // e.g. "P99"
	Points []TrendPoint
}

// TrendSeries is one series (a group of a scheduled test) over its runs: one
// colour per series, one line style per percentile.
type TrendSeries struct {
	Name  string
	Lines []TrendLine
}

// TrendMark labels a change point: a vertical line at the run where the
// label (release, model version) changed.
type TrendMark struct {
	Time  time.Time
	Label string
}

// Trend styles.
var (
	trendGlyphRadius = vg.Points(2)
	trendAlertRadius = vg.Points(5)
	trendAlertColor  = color.RGBA{0xCC, 0x00, 0x00, 0xFF}
	trendBandAlpha   = uint8(45)
	trendMarkColor   = color.RGBA{0x66, 0x66, 0x66, 0xFF}
)

// Trend draws each series' percentiles per run over calendar time: a line
// with a dot per run, the run's confidence interval as a shaded band where
// both ends are bounded, a red ring on flagged runs, and a dotted vertical
// line with the label at each change point.
func Trend(series []TrendSeries, marks []TrendMark, opts ...Option) (*Figure, error) {
	o := makeOptions(opts)
	title := o.title
	if title == "" {
		title = "percentiles per run"
		if o.metric != "" {
			title = o.metric + " — " + title
		}
	}
	p := newPlot(title)
	p.Y.Label.Text = o.axisLabel()
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	f := newFigure(p, o)
	var lines []XYs // the lines as drawn, for the change labels to avoid
	xmin, xmax := math.Inf(1), math.Inf(-1)
	drawn := 0
	for i, s := range series {
		col, _ := seriesStyle(i)
		for j, tl := range s.Lines {
			n, runs, err := addTrendLine(f.panels[0], s.Name, tl, col, driftDashes[j%len(driftDashes)])
			lines = append(lines, runs...)
			if err != nil {
				return nil, err
			}
			drawn += n
			for _, pt := range tl.Points {
				x := unixSeconds(pt.Time)
				xmin, xmax = min(xmin, x), max(xmax, x)
			}
		}
	}
	if drawn == 0 {
		return nil, ErrNoData
	}
	if xmin == xmax {
		xmin, xmax = xmin-43200, xmax+43200
	}
	pad := 0.02 * (xmax - xmin) // the first and last dots are not cut
	xmin, xmax = xmin-pad, xmax+pad
	p.X.Min, p.X.Max = xmin, xmax
	p.X.Label.Text = "run start (UTC)"
	p.X.Tick.Marker = timeTicks{length: o.width - vg.Points(200)} // less the y axis and the legend
	ny := min(maxLinearLabels, maxLabels(o.height))
	p.Y.Min, p.Y.Max = widenRound(0, p.Y.Max, ny)
	p.Y.Tick.Marker = roundTicks{maxN: ny}
	if len(marks) > 0 {
		cm := &changeMarks{marks: marks, lines: lines}
		p.Add(cm)
		f.panels[0].labels = append(f.panels[0].labels, cm)
	}
	return f, nil
}

// addTrendLine adds one percentile's bands, line, dots and alert rings, and
// returns the number of points drawn.
func addTrendLine(pn *panel, series string, tl TrendLine, col color.RGBA, dashes []vg.Length) (int, []XYs, error) {
	p := pn.plot
	name := tl.Name
	if series != "" {
		name = series + " " + tl.Name
	}
	var pts, alerts XYs
	var runs []XYs
	for _, pt := range tl.Points {
		if math.IsNaN(pt.Value) || math.IsInf(pt.Value, 0) {
			if len(pts) > 0 {
				runs = append(runs, pts)
				pts = nil
			}
			continue
		}
		xy := plotter.XY{X: unixSeconds(pt.Time), Y: pt.Value}
		pts = append(pts, xy)
		if pt.Alert {
			alerts = append(alerts, xy)
		}
	}
	if len(pts) > 0 {
		runs = append(runs, pts)
	}
	for _, b := range trendBands(tl.Points) {
		p.Add(&intervalBand{pts: b, color: withAlpha(col, trendBandAlpha)})
	}
	drawn := 0
	for k, run := range runs {
		line, sc, err := plotter.NewLinePoints(run)
		if err != nil {
			return 0, nil, fmt.Errorf("plot: %s: %w", name, err)
		}
		line.Color, line.Width, line.Dashes = col, vg.Points(1.4), dashes
		sc.Shape, sc.Color, sc.Radius = draw.CircleGlyph{}, col, trendGlyphRadius
		p.Add(line, sc)
		if k == 0 {
			pn.add(name, line, sc)
		}
		drawn += len(run)
	}
	if len(alerts) > 0 {
		sc, err := plotter.NewScatter(alerts)
		if err != nil {
			return 0, nil, fmt.Errorf("plot: %s: %w", name, err)
		}
		sc.Shape, sc.Color, sc.Radius = draw.RingGlyph{}, trendAlertColor, trendAlertRadius
		p.Add(sc)
	}
	return drawn, runs, nil
}

// bandPoint is one run of an interval band.
type bandPoint struct{ x, lo, hi float64 }

// trendBands splits the points into runs of consecutive points whose
// interval is bounded on both sides.
func trendBands(points []TrendPoint) [][]bandPoint {
	var out [][]bandPoint
	var cur []bandPoint
	for _, pt := range points {
		if !finite(pt.Value) || !finite(pt.Lo) || !finite(pt.Hi) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, bandPoint{unixSeconds(pt.Time), pt.Lo, pt.Hi})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// intervalBand fills the region between the lower and the upper bounds of a
// run of points: the upper edge left to right, then the lower edge back. A
// single point is drawn as a short vertical bar.
type intervalBand struct {
	pts   []bandPoint
	color color.Color
}

// Plot implements plot.Plotter.
func (b *intervalBand) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	if len(b.pts) == 1 {
		x := trX(b.pts[0].x)
		c.StrokeLine2(draw.LineStyle{Color: b.color, Width: 2 * trendGlyphRadius}, x, trY(b.pts[0].lo), x, trY(b.pts[0].hi))
		return
	}
	poly := make([]vg.Point, 0, 2*len(b.pts))
	for _, p := range b.pts {
		poly = append(poly, vg.Point{X: trX(p.x), Y: trY(p.hi)})
	}
	for i := len(b.pts) - 1; i >= 0; i-- {
		poly = append(poly, vg.Point{X: trX(b.pts[i].x), Y: trY(b.pts[i].lo)})
	}
	c.FillPolygon(b.color, c.ClipPolygonXY(poly))
}

// DataRange implements plot.DataRanger: the band is inside the axes.
func (b *intervalBand) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range b.pts {
		xmin, xmax = min(xmin, p.x), max(xmax, p.x)
		ymin, ymax = min(ymin, p.lo), max(ymax, p.hi)
	}
	return xmin, xmax, ymin, ymax
}

// changeMarks draws a dotted vertical line over the whole data area at each
// change point, with its label turned to run along the line, beside it
// where no trend line or dot lies (from the top down, right then left).
type changeMarks struct {
	marks []TrendMark
	lines []XYs
}

// changeLabelStyle is the style of the change labels, drawn turned a
// quarter turn anticlockwise.
func changeLabelStyle(plt *plot.Plot) text.Style {
	return text.Style{Font: font.From(sans, 8), Color: trendMarkColor, Handler: plt.TextHandler,
		XAlign: draw.XRight, YAlign: draw.YBottom, Rotation: math.Pi / 2}
}

// visible are the marks within the data area, with their x.
func (m *changeMarks) visible(c draw.Canvas, plt *plot.Plot) ([]TrendMark, []vg.Length) {
	trX, _ := plt.Transforms(&c)
	var ms []TrendMark
	var xs []vg.Length
	for _, mk := range m.marks {
		if x := trX(unixSeconds(mk.Time)); x >= c.Min.X && x <= c.Max.X {
			ms, xs = append(ms, mk), append(xs, x)
		}
	}
	return ms, xs
}

// boxes implements labeller.
func (m *changeMarks) boxes(c draw.Canvas, plt *plot.Plot) []vg.Rectangle {
	trX, trY := plt.Transforms(&c)
	o := &obstacles{}
	for _, l := range m.lines {
		vs := make([]vg.Point, len(l))
		for i, p := range l {
			vs[i] = vg.Point{X: trX(p.X), Y: trY(p.Y)}
			o.add(vs[i], vs[i], trendGlyphRadius)
		}
		o.polyline(vs, vg.Points(0.7))
	}
	ms, xs := m.visible(c, plt)
	for _, x := range xs {
		o.add(vg.Point{X: x, Y: c.Min.Y}, vg.Point{X: x, Y: c.Max.Y}, vg.Points(0.4))
	}
	sty := changeLabelStyle(plt)
	pl := &placer{bounds: c.Rectangle, obs: o}
	var out []vg.Rectangle
	for i, mk := range ms {
		w, h := sty.Height(mk.Label), sty.Width(mk.Label) // turned
		gap := vg.Points(1.5)
		var cands []vg.Rectangle
		for top := c.Max.Y - vg.Points(2); top-h >= c.Min.Y; top -= vg.Points(4) {
			for _, left := range []vg.Length{xs[i] + gap, xs[i] - gap - w} {
				cands = append(cands, vg.Rectangle{Min: vg.Point{X: left, Y: top - h}, Max: vg.Point{X: left + w, Y: top}})
			}
		}
		if len(cands) == 0 {
			cands = append(cands, vg.Rectangle{Min: vg.Point{X: xs[i] + gap, Y: c.Min.Y}, Max: vg.Point{X: xs[i] + gap + w, Y: c.Min.Y + h}})
		}
		out = append(out, pl.place(cands, vg.Point{X: xs[i], Y: c.Max.Y}))
	}
	return out
}

// Plot implements plot.Plotter.
func (m *changeMarks) Plot(c draw.Canvas, plt *plot.Plot) {
	ls := draw.LineStyle{Color: trendMarkColor, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}
	ms, xs := m.visible(c, plt)
	for _, x := range xs {
		c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
	}
	sty := changeLabelStyle(plt)
	for i, r := range m.boxes(c, plt) {
		// Turned anticlockwise, right-aligned and bottom-aligned at the
		// box's top right corner, the text fills the box.
		c.FillText(sty, vg.Point{X: r.Max.X, Y: r.Max.Y}, ms[i].Label)
	}
}

// unixSeconds is a time on the calendar axis.
func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
