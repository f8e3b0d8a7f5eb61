package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CapacityCurve is one curve of a capacity figure: one point per load level
// (levels without a value left out), and the SLO limit that applies to it
// (NaN: none).
type CapacityCurve struct {
	Name   string
	Points XYs
	Limit  float64
}

// Capacity styles: the SLO limits dashed in the curve's colour, the knee (the
// highest level meeting the SLO) a grey dotted vertical line.
var (
	limitDashes = []vg.Length{vg.Points(5), vg.Points(3)}
	kneeDashes  = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	kneeColor   = color.RGBA{0x55, 0x55, 0x55, 0xFF}
)

// LatencyVsThroughput draws latency percentiles (TTFT/TPOT p50, p90, p99 in
// ms) against the achieved throughput (req/s), one point per level, each
// curve's SLO limit as a dashed horizontal line and the knee — the achieved
// throughput at the highest passing level (NaN: none) — as a dotted vertical.
func LatencyVsThroughput(curves []CapacityCurve, knee float64, opts ...Option) (*Figure, error) {
	o := makeOptions(opts)
	title := o.title
	if title == "" {
		title = "latency against achieved throughput"
	}
	p := newPlot(title)
	p.X.Label.Text = "achieved throughput (req/s)"
	p.Y.Label.Text = "latency (ms)"
	return capacityFigure(p, curves, knee, "SLO limit", o)
}

// GoodputVsOffered draws the goodput and the achieved rate (req/s) against
// the offered load, one point per level, with the ideal (achieved = offered)
// dashed and the knee — the highest passing offered level — dotted.
func GoodputVsOffered(curves []CapacityCurve, knee float64, unit string, opts ...Option) (*Figure, error) {
	o := makeOptions(opts)
	title := o.title
	if title == "" {
		title = "goodput against offered load"
	}
	p := newPlot(title)
	p.X.Label.Text = "offered load (" + unit + ")"
	p.Y.Label.Text = "req/s"
	return capacityFigure(p, curves, knee, "", o)
}

// capacityFigure adds the curves, their limits and the knee to p.
func capacityFigure(p *plot.Plot, curves []CapacityCurve, knee float64, limitLabel string, o options) (*Figure, error) {
	p.Add(plotter.NewGrid())
	p.X.Min, p.Y.Min = 0, 0
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), -vg.Points(4)
	xmax, ymax, drawn := 0.0, 0.0, 0
	for _, c := range curves {
		for _, pt := range c.Points {
			xmax, ymax = math.Max(xmax, pt.X), math.Max(ymax, pt.Y)
		}
		if !math.IsNaN(c.Limit) {
			ymax = math.Max(ymax, c.Limit)
		}
	}
	if !math.IsNaN(knee) {
		xmax = math.Max(xmax, knee)
	}
	for i, c := range curves {
		if len(c.Points) == 0 {
			continue
		}
		col, dashes := seriesStyle(i)
		line, pts, err := plotter.NewLinePoints(c.Points)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", c.Name, err)
		}
		line.Color, line.Dashes, line.Width = col, dashes, vg.Points(1.4)
		pts.Color, pts.Shape, pts.Radius = col, draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(line, pts)
		p.Legend.Add(c.Name, line, pts)
		drawn++
		if !math.IsNaN(c.Limit) {
			l, err := addLine(p, XYs{{X: 0, Y: c.Limit}, {X: xmax * 1.05, Y: c.Limit}}, col, limitDashes)
			if err != nil {
				return nil, err
			}
			if limitLabel != "" {
				p.Legend.Add(fmt.Sprintf("%s %s < %g", limitLabel, c.Name, c.Limit), l)
			}
		}
	}
	if drawn == 0 {
		return nil, ErrNoData
	}
	if !math.IsNaN(knee) {
		l, err := addLine(p, XYs{{X: knee, Y: 0}, {X: knee, Y: ymax * 1.05}}, kneeColor, kneeDashes)
		if err != nil {
			return nil, err
		}
		p.Legend.Add(fmt.Sprintf("knee: highest level meeting the SLO (%.3g)", knee), l)
	}
	return &Figure{Plot: p, Width: o.width, Height: o.height, DPI: o.dpi}, nil
}

// IdealLine is the achieved = offered diagonal up to max, for
// GoodputVsOffered.
func IdealLine(max float64) CapacityCurve {
	return CapacityCurve{Name: "offered (ideal)", Points: XYs{{X: 0, Y: 0}, {X: max, Y: max}}, Limit: math.NaN()}
}

func addLine(p *plot.Plot, pts XYs, col color.RGBA, dashes []vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	l.Color, l.Dashes, l.Width = col, dashes, vg.Points(1)
	p.Add(l)
	return l, nil
}
