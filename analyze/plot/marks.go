package plot

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// markLabel is one percentile marker of one curve.
type markLabel struct {
	Mark
	color  color.RGBA
	series int
	text   string
}

// marks draws the percentile markers of every curve: a dashed vertical line
// from the axis to the curve at the percentile's value, a dot where it meets
// the curve, and a label placed right of and below the dot (the ECDF is above
// and left of that corner) unless it would overlap an earlier label or leave
// the canvas.
type marks struct {
	labels []markLabel
	// legend are the legend's entries: the labels keep clear of it.
	legend []string
}

// Marker drawing style.
var (
	markLineWidth = vg.Points(0.8)
	markDashes    = []vg.Length{vg.Points(3), vg.Points(2)}
	markRadius    = vg.Points(2.5)
	markFontSize  = font.Length(8.5)
	labelSpacing  = vg.Points(2)
	labelPad      = vg.Points(1) // the label's white box around its text
	// labelBoxColor is white, 59% opaque (premultiplied): curves still
	// show through a label's box.
	labelBoxColor = color.RGBA{150, 150, 150, 150}
)

// Plot implements plot.Plotter.
func (m *marks) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := text.Style{
		Font:    font.From(sans, markFontSize),
		Handler: plt.TextHandler,
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
	}
	var placed []vg.Rectangle
	if r, ok := legendRect(plt.Legend, m.legend, c.Rectangle); ok {
		placed = append(placed, r)
	}
	for _, l := range m.labels {
		x, y := trX(l.Value), trY(l.P)
		c.StrokeLine2(draw.LineStyle{Color: l.color, Width: markLineWidth, Dashes: markDashes}, x, trY(0), x, y)
		c.DrawGlyph(draw.GlyphStyle{Color: l.color, Radius: markRadius, Shape: draw.CircleGlyph{}}, vg.Point{X: x, Y: y})

		w, h := sty.Width(l.text), sty.Height(l.text)+labelSpacing
		gap := markRadius + vg.Points(2)
		pad := labelPad
		box := func(left, top vg.Length) vg.Rectangle {
			return vg.Rectangle{Min: vg.Point{X: left, Y: top - h}, Max: vg.Point{X: left + w, Y: top}}
		}
		// Below the dot, right of its line, else left of it, stepping down
		// while the place is taken; a place must lie wholly inside the
		// plot area. Failing all, the first place moved inside.
		var r vg.Rectangle
		found := false
		for step := 0; step < 8 && !found; step++ {
			top := y - gap - vg.Length(step)*h
			for _, left := range []vg.Length{x + gap, x - gap - w} {
				r = box(left, top)
				if inside(r, c.Rectangle, pad) && !overlapsAny(r, placed) {
					found = true
					break
				}
			}
		}
		if !found {
			r = clampRect(box(x+gap, y-gap), c.Rectangle, pad)
		}
		placed = append(placed, r)
		c.FillPolygon(labelBoxColor, []vg.Point{
			{X: r.Min.X - pad, Y: r.Min.Y - pad}, {X: r.Max.X + pad, Y: r.Min.Y - pad},
			{X: r.Max.X + pad, Y: r.Max.Y + pad}, {X: r.Min.X - pad, Y: r.Max.Y + pad},
		})
		sty.Color = darken(l.color)
		c.FillText(sty, vg.Point{X: r.Min.X, Y: r.Max.Y}, l.text)
	}
}

// DataRange implements plot.DataRanger so that every marker is on the axes.
func (m *marks) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = m.labels[0].Value, m.labels[0].Value
	ymin, ymax = 0, 1
	for _, l := range m.labels[1:] {
		xmin = min(xmin, l.Value)
		xmax = max(xmax, l.Value)
	}
	return xmin, xmax, ymin, ymax
}

// inside reports whether r, grown by pad on every side, lies within bounds.
func inside(r, bounds vg.Rectangle, pad vg.Length) bool {
	return r.Min.X-pad >= bounds.Min.X && r.Max.X+pad <= bounds.Max.X &&
		r.Min.Y-pad >= bounds.Min.Y && r.Max.Y+pad <= bounds.Max.Y
}

// legendRect is where gonum draws a bottom-right or top-left legend of
// these entries in the data area (plot.Legend.Draw's layout; its Rectangle
// method ignores the offsets).
func legendRect(l plot.Legend, entries []string, area vg.Rectangle) (vg.Rectangle, bool) {
	if len(entries) == 0 {
		return vg.Rectangle{}, false
	}
	var width, height vg.Length
	em := l.TextStyle.Rectangle(" ").Max.X
	for _, e := range entries {
		width = max(width, l.ThumbnailWidth+em+l.TextStyle.Rectangle(e).Max.X)
		height = max(height, l.TextStyle.Rectangle(e).Max.Y)
	}
	total := vg.Length(len(entries))*height + vg.Length(len(entries)-1)*l.Padding
	var r vg.Rectangle
	if l.Left {
		r.Min.X, r.Max.X = area.Min.X+l.XOffs, area.Min.X+l.XOffs+width
	} else {
		r.Min.X, r.Max.X = area.Max.X+l.XOffs-width, area.Max.X+l.XOffs
	}
	if l.Top {
		r.Max.Y = area.Max.Y + l.YOffs
		r.Min.Y = r.Max.Y - total
	} else {
		r.Min.Y = area.Min.Y + l.YOffs
		r.Max.Y = r.Min.Y + total
	}
	return r, true
}

// clampRect moves r, grown by pad on every side, inside bounds where it fits.
func clampRect(r, bounds vg.Rectangle, pad vg.Length) vg.Rectangle {
	shift := func(lo, hi, blo, bhi vg.Length) vg.Length {
		switch {
		case hi+pad > bhi:
			return bhi - hi - pad
		case lo-pad < blo:
			return blo - lo + pad
		}
		return 0
	}
	dx := shift(r.Min.X, r.Max.X, bounds.Min.X, bounds.Max.X)
	dy := shift(r.Min.Y, r.Max.Y, bounds.Min.Y, bounds.Max.Y)
	return vg.Rectangle{Min: vg.Point{X: r.Min.X + dx, Y: r.Min.Y + dy}, Max: vg.Point{X: r.Max.X + dx, Y: r.Max.Y + dy}}
}

func overlapsAny(r vg.Rectangle, rs []vg.Rectangle) bool {
	for _, o := range rs {
		if r.Min.X < o.Max.X && o.Min.X < r.Max.X && r.Min.Y < o.Max.Y && o.Min.Y < r.Max.Y {
			return true
		}
	}
	return false
}

// darken returns a darker shade of c for text, readable on white.
func darken(c color.RGBA) color.RGBA {
	return color.RGBA{c.R / 4 * 3, c.G / 4 * 3, c.B / 4 * 3, 255}
}
