package plot

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FrontierSeries is one server configuration's points on a frontier
// figure: one per load level.
type FrontierSeries struct {
	Name   string
	Points XYs
}

// Frontier draws the configurations' points — each in its colour, a level
// a point — and the Pareto frontier through the points no other point
// beats on both axes (front, in any order), as vLLM's plot_pareto draws
// tokens/s/user against tokens/s/GPU (v0.32.0,
// vllm/benchmarks/sweep/plot_pareto.py). Both axes start at 0. No point at
// all is ErrNoData.
func Frontier(series []FrontierSeries, front XYs, xLabel, yLabel string, opts ...Option) (*Figure, error) {
	o := makeOptions(opts)
	title := o.title
	if title == "" {
		title = "throughput per user against throughput per instance"
	}
	p := newPlot(title)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	f := newFigure(p, o)
	pn := f.panels[0]
	p.Add(plotter.NewGrid())
	xmax, ymax, n := 0.0, 0.0, 0
	for _, s := range series {
		for _, pt := range s.Points {
			xmax, ymax, n = math.Max(xmax, pt.X), math.Max(ymax, pt.Y), n+1
		}
	}
	if n == 0 {
		return nil, ErrNoData
	}
	nx := min(maxLinearLabels, maxLabels(o.width))
	ny := min(maxLinearLabels, maxLabels(o.height))
	p.X.Min, p.X.Max = widenRound(0, math.Max(xmax, 1e-9)*1.04, nx)
	p.Y.Min, p.Y.Max = widenRound(0, math.Max(ymax, 1e-9)*1.04, ny)
	p.X.Tick.Marker = roundTicks{maxN: nx}
	p.Y.Tick.Marker = roundTicks{maxN: ny}
	if len(front) > 0 {
		pts := slices.Clone(front)
		slices.SortFunc(pts, func(a, b plotter.XY) int { return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Y, b.Y)) })
		line, marks, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plot: the frontier: %w", err)
		}
		line.Color, line.Width = kneeColor, vg.Points(1.2)
		marks.Color, marks.Shape, marks.Radius = kneeColor, draw.RingGlyph{}, vg.Points(5.5)
		p.Add(line, marks)
		pn.add("Pareto frontier", line, marks)
	}
	for i, s := range series {
		if len(s.Points) == 0 {
			continue
		}
		col, _ := seriesStyle(i)
		sc, err := plotter.NewScatter(s.Points)
		if err != nil {
			return nil, fmt.Errorf("plot: %s: %w", s.Name, err)
		}
		sc.Color, sc.Shape, sc.Radius = col, draw.CircleGlyph{}, vg.Points(3)
		p.Add(sc)
		pn.add(s.Name, sc)
	}
	return f, nil
}
