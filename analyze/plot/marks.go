package plot

import (
	"image/color"
	"strings"

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
// meets the curve. With one curve each dot is labelled with its value, placed
// where no other label, the legend or the note lies; with several, the
// values go into table, the legend, which names the curves too.
type marks struct {
	labels []markLabel
	// legend are the legend's entries: the labels keep clear of it.
	legend []string
	// table, when not nil, holds the values instead of labels.
	table *valueTable
	// note, when not empty, says how the marks are placed (see ruleNote),
	// in the top left corner.
	note string
}

// ruleNote is the note drawn when a dot lies visibly below its percentile's
// height: it names the rule that puts it there.
const ruleNote = "dots: k6's p(N), linear between samples at rank N%·(n−1), on the step curve"

// offRule is how far below P (in ECDF height) a dot may be before ruleNote
// is drawn: about a pixel and a half at the default size.
const offRule = 0.005

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
	if r, ok := legendRect(plt.Legend, m.legend, c.Rectangle); ok && m.table == nil {
		placed = append(placed, r)
	}
	if m.table != nil {
		placed = append(placed, m.table.draw(c, plt))
	}
	if m.note != "" {
		inset := labelPad + vg.Points(4)
		note := wrap(m.note, c.Max.X-c.Min.X-2*inset, sty.Width)
		top, left := c.Max.Y-inset, c.Min.X+inset
		r := vg.Rectangle{Min: vg.Point{X: left, Y: top - sty.Height(note) - labelSpacing}, Max: vg.Point{X: left + sty.Width(note), Y: top}}
		placed = append(placed, r)
		sty.Color = color.Black
		drawLabel(c, sty, r, note)
	}
	for _, l := range m.labels {
		x, y := trX(l.Value), trY(l.height)
		c.StrokeLine2(draw.LineStyle{Color: l.color, Width: markLineWidth, Dashes: markDashes}, x, trY(0), x, y)
		c.DrawGlyph(draw.GlyphStyle{Color: l.color, Radius: markRadius, Shape: draw.CircleGlyph{}}, vg.Point{X: x, Y: y})
		if m.table != nil {
			continue
		}
		r := placeLabel(vg.Point{X: x, Y: y}, sty.Width(l.text), sty.Height(l.text)+labelSpacing, c.Rectangle, placed)
		placed = append(placed, r)
		sty.Color = darken(l.color)
		drawLabel(c, sty, r, l.text)
	}
}

// placeLabel finds a place for a w×h label of the dot at p: below the dot,
// right of its line, else left of it, stepping down while the place is
// taken; else above the dot and left of its line (the ECDF is up and right
// of the dot, and below and left of it), stepping up; else the free place
// nearest the dot on a grid over bounds. A place lies wholly inside bounds,
// its box (grown by labelPad) clear of the boxes taken. Failing all, the
// first place moved inside.
func placeLabel(p vg.Point, w, h vg.Length, bounds vg.Rectangle, taken []vg.Rectangle) vg.Rectangle {
	gap := markRadius + vg.Points(2)
	box := func(left, top vg.Length) vg.Rectangle {
		return vg.Rectangle{Min: vg.Point{X: left, Y: top - h}, Max: vg.Point{X: left + w, Y: top}}
	}
	free := func(r vg.Rectangle) bool {
		grown := vg.Rectangle{Min: vg.Point{X: r.Min.X - 2*labelPad, Y: r.Min.Y - 2*labelPad}, Max: vg.Point{X: r.Max.X + 2*labelPad, Y: r.Max.Y + 2*labelPad}}
		return inside(r, bounds, labelPad) && !overlapsAny(grown, taken)
	}
	for step := 0; step < 8; step++ {
		top := p.Y - gap - vg.Length(step)*h
		for _, left := range []vg.Length{p.X + gap, p.X - gap - w} {
			if r := box(left, top); free(r) {
				return r
			}
		}
	}
	for step := 0; step < 8; step++ {
		if r := box(p.X-gap-w, p.Y+gap+vg.Length(step+1)*h); free(r) {
			return r
		}
	}
	best, bestD, found := vg.Rectangle{}, vg.Length(0), false
	for top := bounds.Max.Y - labelPad; top-h >= bounds.Min.Y+labelPad; top -= h / 2 {
		for left := bounds.Min.X + labelPad; left+w <= bounds.Max.X-labelPad; left += w / 4 {
			r := box(left, top)
			dx, dy := left+w/2-p.X, top-h/2-p.Y
			if d := dx*dx + dy*dy; free(r) && (!found || d < bestD) {
				best, bestD, found = r, d, true
			}
		}
	}
	if found {
		return best
	}
	return clampRect(box(p.X+gap, p.Y-gap), bounds, labelPad)
}

// wrap breaks s into lines no wider than w where it can (at spaces).
func wrap(s string, w vg.Length, width func(string) vg.Length) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && width(line+" "+word) > w {
			lines = append(lines, line)
			line = word
			continue
		}
		line = strings.TrimPrefix(line+" "+word, " ")
	}
	return strings.Join(append(lines, line), "\n")
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
