package plot

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// band fills the region between ECDF−ε and ECDF+ε (clipped to [0, 1]) of a
// post-step curve: the DKW confidence band.
type band struct {
	pts   XYs
	eps   float64
	color color.Color
}

// Plot implements plot.Plotter.
func (b *band) Plot(c draw.Canvas, plt *plot.Plot) {
	if len(b.pts) == 0 {
		return
	}
	trX, trY := plt.Transforms(&c)
	up := func(y float64) vg.Length { return trY(min(1, y+b.eps)) }
	lo := func(y float64) vg.Length { return trY(max(0, y-b.eps)) }
	n := len(b.pts)
	poly := make([]vg.Point, 0, 4*n)
	// Upper edge, left to right, as a post-step line.
	for i, p := range b.pts {
		x := trX(p.X)
		if i > 0 {
			poly = append(poly, vg.Point{X: x, Y: up(b.pts[i-1].Y)})
		}
		poly = append(poly, vg.Point{X: x, Y: up(p.Y)})
	}
	// Lower edge, right to left.
	for i := n - 1; i >= 0; i-- {
		x := trX(b.pts[i].X)
		poly = append(poly, vg.Point{X: x, Y: lo(b.pts[i].Y)})
		if i > 0 {
			poly = append(poly, vg.Point{X: x, Y: lo(b.pts[i-1].Y)})
		}
	}
	c.FillPolygon(b.color, c.ClipPolygonXY(poly))
}
