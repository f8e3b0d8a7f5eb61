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

// CapacityPanel is one panel of a latency figure: the curves of one metric
// family (TTFT; TPOT/ITL) on a y range of their own, so that curves in the
// tens of ms are not flattened under curves in the thousands.
type CapacityPanel struct {
	// Name is the family, e.g. "TTFT": the panel's y axis is "Name (ms)".
	Name   string
	Curves []CapacityCurve
}

// capacityPanelShare sizes a figure of several panels: n panels make it
// (0.4 + 0.6·n) × DefaultHeight high unless Size says otherwise.
const capacityPanelShare = 0.6

// LatencyVsThroughput draws latency percentiles (TTFT/TPOT p50, p90, p99 in
// ms) against the achieved throughput (req/s), one panel per metric family
// stacked on a shared x range, one point per level, each curve's SLO limit
// as a dashed horizontal line and the knee — the achieved throughput at the
// highest passing level (NaN: none) — as a dotted vertical. A panel without
// points is left out; none with points is ErrNoData.
func LatencyVsThroughput(panels []CapacityPanel, knee float64, opts ...Option) (*Figure, error) {
	o := makeOptions(opts)
	title := o.title
	if title == "" {
		title = "latency against achieved throughput"
	}
	var drawn []CapacityPanel
	for _, pn := range panels {
		for _, c := range pn.Curves {
			if len(c.Points) > 0 {
				drawn = append(drawn, pn)
				break
			}
		}
	}
	if len(drawn) == 0 {
		return nil, ErrNoData
	}
	if !o.sized && len(drawn) > 1 {
		o.height = DefaultHeight * vg.Length(1-capacityPanelShare+capacityPanelShare*float64(len(drawn)))
	}
	var all []CapacityCurve
	for _, pn := range drawn {
		all = append(all, pn.Curves...)
	}
	xmax := capacityXMax(all, knee)
	f := &Figure{Width: o.width, Height: o.height, DPI: o.dpi}
	if len(drawn) > 1 {
		f.title = title
	}
	for i, cp := range drawn {
		p := newPlot("")
		if len(drawn) == 1 {
			p.Title.Text = title
		}
		if i == len(drawn)-1 {
			p.X.Label.Text = "achieved throughput (req/s)"
		}
		p.Y.Label.Text = "latency (ms)"
		if cp.Name != "" {
			p.Y.Label.Text = cp.Name + " (ms)"
		}
		pn := newPanel(p)
		f.panels = append(f.panels, pn)
		kneeLabel := i == 0
		if err := capacityPanel(pn, cp.Curves, knee, xmax, "SLO limit", kneeLabel, o); err != nil {
			return nil, err
		}
	}
	f.Plot = f.panels[0].plot
	return f, nil
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
	f := newFigure(p, o)
	if err := capacityPanel(f.panels[0], curves, knee, capacityXMax(curves, knee), "", true, o); err != nil {
		return nil, err
	}
	return f, nil
}

// capacityXMax is the largest x of the curves and the knee.
func capacityXMax(curves []CapacityCurve, knee float64) float64 {
	xmax := 0.0
	for _, c := range curves {
		for _, pt := range c.Points {
			xmax = math.Max(xmax, pt.X)
		}
	}
	if !math.IsNaN(knee) {
		xmax = math.Max(xmax, knee)
	}
	return xmax
}

// capacityPanel adds the curves, their limits and the knee to the panel,
// on an x axis from 0 to xmax (widened to a label) and a y axis from 0 to
// the largest value or limit, both with round labels.
func capacityPanel(pn *panel, curves []CapacityCurve, knee, xmax float64, limitLabel string, kneeLabel bool, o options) error {
	p := pn.plot
	p.Add(plotter.NewGrid())
	ymax, drawn := 0.0, 0
	for _, c := range curves {
		for _, pt := range c.Points {
			ymax = math.Max(ymax, pt.Y)
		}
		if !math.IsNaN(c.Limit) && len(c.Points) > 0 {
			ymax = math.Max(ymax, c.Limit)
		}
	}
	if xmax <= 0 {
		xmax = 1
	}
	if ymax <= 0 {
		ymax = 1
	}
	nx := min(maxLinearLabels, maxLabels(o.width))
	ny := min(maxLinearLabels, maxLabels(o.height*capacityPanelShare))
	p.X.Min, p.X.Max = widenRound(0, xmax, nx)
	p.Y.Min, p.Y.Max = widenRound(0, ymax*1.04, ny)
	p.X.Tick.Marker = roundTicks{maxN: nx}
	p.Y.Tick.Marker = roundTicks{maxN: ny}
	for i, c := range curves {
		if len(c.Points) == 0 {
			continue
		}
		col, dashes := seriesStyle(i)
		line, pts, err := plotter.NewLinePoints(c.Points)
		if err != nil {
			return fmt.Errorf("plot: %s: %w", c.Name, err)
		}
		line.Color, line.Dashes, line.Width = col, dashes, vg.Points(1.4)
		pts.Color, pts.Shape, pts.Radius = col, draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(line, pts)
		pn.add(c.Name, line, pts)
		drawn++
		if !math.IsNaN(c.Limit) {
			l, err := addLine(p, XYs{{X: p.X.Min, Y: c.Limit}, {X: p.X.Max, Y: c.Limit}}, col, limitDashes)
			if err != nil {
				return err
			}
			if limitLabel != "" {
				pn.add(fmt.Sprintf("%s %s < %g", limitLabel, c.Name, c.Limit), l)
			}
		}
	}
	if drawn == 0 {
		return ErrNoData
	}
	if !math.IsNaN(knee) {
		l, err := addLine(p, XYs{{X: knee, Y: p.Y.Min}, {X: knee, Y: p.Y.Max}}, kneeColor, kneeDashes)
		if err != nil {
			return err
		}
		if kneeLabel {
			pn.add(fmt.Sprintf("knee: highest level meeting the SLO (%.3g)", knee), l)
		}
	}
	return nil
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
