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
	// height is the ECDF's height at Value, where the curve is: k6's
	// percentile interpolates between two samples, on the flat step of the
	// curve between them, which with few samples is below P.
	height float64
	color  color.RGBA
	series int
	value  string // the value with its unit: 1622 ms
	text   string // the label: P99 1622 ms
}

// marks draws the percentile markers of every curve: a dashed vertical line
// from the axis up to the curve at the percentile's value and a dot where it
// meets the curve. With one curve each dot is labelled with its value,
// placed where no curve, marker line, dot or other label lies; with
// several, the values go into the figure's value table, beside the plot.
type marks struct {
	labels []markLabel
	// curves are the ECDF curves as drawn (post-step), for the labels to
	// keep clear of.
	curves []XYs
	// labelled is false when the values are in a table instead.
	labelled bool
	// pn is the panel drawn on: its legend or table, when in the plot
	// area's corner, is kept clear too.
	pn *panel
}

// Marker drawing style.
var (
	markLineWidth = vg.Points(0.8)
	markDashes    = []vg.Length{vg.Points(3), vg.Points(2)}
	markRadius    = vg.Points(2.5)
	markFontSize  = font.Length(8.5)
	labelSpacing  = vg.Points(2)
	labelPad      = vg.Points(1) // the label's white box around its text
	// labelBoxColor is white, 59% opaque (premultiplied).
	labelBoxColor = color.RGBA{150, 150, 150, 150}
	// curveWidth is the width of an ECDF curve.
	curveWidth = vg.Points(1.5)
)

// style is the labels' text style.
func (m *marks) style(plt *plot.Plot) text.Style {
	return text.Style{
		Font:    font.From(sans, markFontSize),
		Handler: plt.TextHandler,
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
	}
}

// obstacles are the curves, the marker lines and the dots on c.
func (m *marks) obstacles(c draw.Canvas, plt *plot.Plot) *obstacles {
	trX, trY := plt.Transforms(&c)
	o := &obstacles{}
	for _, pts := range m.curves {
		vs := make([]vg.Point, 0, len(pts))
		for _, p := range pts {
			if p.X <= 0 && isLog(plt) {
				continue
			}
			vs = append(vs, vg.Point{X: trX(p.X), Y: trY(p.Y)})
		}
		o.postStep(vs, curveWidth/2)
	}
	for _, l := range m.labels {
		x, y := trX(l.Value), trY(l.height)
		o.add(vg.Point{X: x, Y: trY(0)}, vg.Point{X: x, Y: y}, markLineWidth/2)
		o.add(vg.Point{X: x, Y: y}, vg.Point{X: x, Y: y}, markRadius)
	}
	return o
}

// isLog reports whether plt's x axis is a log axis.
func isLog(plt *plot.Plot) bool {
	_, ok := plt.X.Scale.(plot.LogScale)
	return ok
}

// boxes implements labeller: where each label goes on c.
func (m *marks) boxes(c draw.Canvas, plt *plot.Plot) []vg.Rectangle {
	if !m.labelled {
		return nil
	}
	trX, trY := plt.Transforms(&c)
	sty := m.style(plt)
	pl := &placer{bounds: c.Rectangle, obs: m.obstacles(c, plt)}
	if m.pn != nil {
		if r, ok := m.pn.cornerBox(c); ok {
			pl.taken = append(pl.taken, r)
		}
	}
	var out []vg.Rectangle
	for _, l := range m.labels {
		p := vg.Point{X: trX(l.Value), Y: trY(l.height)}
		out = append(out, pl.place(labelCandidates(p, sty.Width(l.text), sty.Height(l.text)+labelSpacing), p))
	}
	return out
}

// Plot implements plot.Plotter.
func (m *marks) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, l := range m.labels {
		x, y := trX(l.Value), trY(l.height)
		c.StrokeLine2(draw.LineStyle{Color: l.color, Width: markLineWidth, Dashes: markDashes}, x, trY(0), x, y)
		c.DrawGlyph(draw.GlyphStyle{Color: l.color, Radius: markRadius, Shape: draw.CircleGlyph{}}, vg.Point{X: x, Y: y})
	}
	sty := m.style(plt)
	for i, r := range m.boxes(c, plt) {
		sty.Color = darken(m.labels[i].color)
		drawLabel(c, sty, r, m.labels[i].text)
	}
}

// labelCandidates are the places tried first for a w×h label of the dot at
// p: below the dot and right of its line (the ECDF through the dot lies
// above and right of it, and below and left), stepping down; above the dot
// and left of its line, stepping up; then below and left, stepping down.
func labelCandidates(p vg.Point, w, h vg.Length) []vg.Rectangle {
	gap := markRadius + vg.Points(2)
	box := func(left, top vg.Length) vg.Rectangle {
		return vg.Rectangle{Min: vg.Point{X: left, Y: top - h}, Max: vg.Point{X: left + w, Y: top}}
	}
	var out []vg.Rectangle
	for step := 0; step < 8; step++ {
		out = append(out, box(p.X+gap, p.Y-gap-vg.Length(step)*h))
	}
	for step := 0; step < 8; step++ {
		out = append(out, box(p.X-gap-w, p.Y+gap+vg.Length(step+1)*h))
	}
	for step := 0; step < 8; step++ {
		out = append(out, box(p.X-gap-w, p.Y-gap-vg.Length(step)*h))
	}
	return out
}

// drawLabel draws text in r on its translucent white box.
func drawLabel(c draw.Canvas, sty text.Style, r vg.Rectangle, s string) {
	pad := labelPad
	c.FillPolygon(labelBoxColor, []vg.Point{
		{X: r.Min.X - pad, Y: r.Min.Y - pad}, {X: r.Max.X + pad, Y: r.Min.Y - pad},
		{X: r.Max.X + pad, Y: r.Max.Y + pad}, {X: r.Min.X - pad, Y: r.Max.Y + pad},
	})
	c.FillText(sty, vg.Point{X: r.Min.X, Y: r.Max.Y}, s)
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

// legendRect is where gonum draws a legend of these entries in area
// (plot.Legend.Draw's layout; its Rectangle method ignores the offsets).
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
