package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default figure size and PNG resolution.
const (
	DefaultWidth  = 9 * vg.Inch
	DefaultHeight = 5.5 * vg.Inch
	DefaultDPI    = 120
)

// Format is an output image format.
type Format string

// The formats a Figure can be written in.
const (
	PNG Format = "png"
	SVG Format = "svg"
)

// FormatOf returns the format named by path's extension (.png or .svg, any
// case), or an error naming the path.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return PNG, nil
	case ".svg":
		return SVG, nil
	}
	return "", fmt.Errorf("plot: cannot tell the image format of %q: use a .png or .svg file name", path)
}

// Figure is a drawn plot ready to be written: one panel or several stacked
// top to bottom, each with its legend (or value table) right of its plot
// area, outside it, so that no legend covers the data.
type Figure struct {
	// Plot is the gonum plot of the first panel; callers may adjust it
	// before writing.
	Plot *plot.Plot
	// Width and Height are the figure's size; DPI is the PNG resolution.
	Width, Height vg.Length
	DPI           int
	// Notes says what could not be drawn as asked (e.g. values ≤ 0 on a log
	// axis), one sentence each; empty when everything was drawn.
	Notes []string

	// title is drawn over all the panels when there are several.
	title  string
	panels []*panel
}

// panel is one plot of a figure with what is drawn beside it.
type panel struct {
	plot *plot.Plot
	// legend is drawn right of the plot area, its top level with the
	// area's top; names are its entries, to measure it.
	legend plot.Legend
	names  []string
	// table, when not nil, is drawn there instead of the legend.
	table *valueTable
	// labels are the plotters that place labels inside the plot area,
	// for the layout tests.
	labels []labeller
	// corner, when not nil, gives the data drawn on a data canvas: the
	// legend or table then goes in the bottom right corner of the plot
	// area when it meets none of it there (an ECDF's curves rise to the
	// left of that corner), else beside the plot.
	corner func(c draw.Canvas) *obstacles
}

// sideSize is the width and height of the panel's legend or table.
func (pn *panel) sideSize() vg.Point {
	if pn.table != nil {
		return pn.table.size(pn.plot)
	}
	if len(pn.names) == 0 {
		return vg.Point{}
	}
	r, _ := legendRect(pn.legend, pn.names, vg.Rectangle{})
	return r.Size()
}

// cornerInset is the legend's distance from the corner of the plot area.
var cornerInset = vg.Points(6)

// cornerBox is where the legend or table goes in the bottom right corner of
// the data canvas c, and whether it is free there.
func (pn *panel) cornerBox(c draw.Canvas) (vg.Rectangle, bool) {
	sz := pn.sideSize()
	if pn.corner == nil || sz == (vg.Point{}) {
		return vg.Rectangle{}, false
	}
	r := vg.Rectangle{Min: vg.Point{X: c.Max.X - cornerInset - sz.X, Y: c.Min.Y + cornerInset},
		Max: vg.Point{X: c.Max.X - cornerInset, Y: c.Min.Y + cornerInset + sz.Y}}
	if !inside(r, c.Rectangle, 0) || pn.corner(c).hits(grow(r, labelPad), false) > 0 {
		return vg.Rectangle{}, false
	}
	return r, true
}

// labeller is a plotter that places labels in the data area: boxes returns
// where, in the canvas the plotter is drawn on.
type labeller interface {
	boxes(c draw.Canvas, plt *plot.Plot) []vg.Rectangle
}

// newFigure returns a figure of one panel, p, with o's size.
func newFigure(p *plot.Plot, o options) *Figure {
	return &Figure{Plot: p, Width: o.width, Height: o.height, DPI: o.dpi, panels: []*panel{newPanel(p)}}
}

// newPanel returns a panel of p with an empty legend in p's style.
func newPanel(p *plot.Plot) *panel {
	l := p.Legend
	l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
	l.Padding = vg.Points(2)
	return &panel{plot: p, legend: l}
}

// add adds a legend entry.
func (pn *panel) add(name string, thumbs ...plot.Thumbnailer) {
	pn.legend.Add(name, thumbs...)
	pn.names = append(pn.names, name)
}

// sideWidth is the width of what is drawn right of the panel's plot area.
func (pn *panel) sideWidth() vg.Length {
	if pn.table != nil {
		return pn.table.size(pn.plot).X
	}
	if len(pn.names) == 0 {
		return 0
	}
	r, _ := legendRect(pn.legend, pn.names, vg.Rectangle{})
	return r.Max.X - r.Min.X
}

// Layout: the gap between a plot area and its legend, and between panels.
var (
	sideGap  = vg.Points(10)
	panelGap = vg.Points(8)
)

// panelLayout is where one panel is drawn: its whole canvas, its data
// area, and the box of its legend or table (empty when it has neither).
type panelLayout struct {
	canvas, data draw.Canvas
	side         vg.Rectangle
}

// layout divides c among the panels: the title (several panels) on top,
// the legends' column on the right, the panels stacked with their data
// areas' left edges aligned.
func (f *Figure) layout(c draw.Canvas) (title vg.Point, out []panelLayout) {
	if f.title != "" && len(f.panels) > 1 {
		sty := titleStyle()
		title = vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(2)}
		c.Max.Y -= sty.Rectangle(f.title).Size().Y + vg.Points(8)
	}
	side := vg.Length(0)
	if !f.cornersFree(c) {
		for _, pn := range f.panels {
			side = max(side, pn.sideWidth())
		}
	}
	if side > 0 {
		c.Max.X -= side + sideGap
	}
	n := vg.Length(len(f.panels))
	h := (c.Max.Y - c.Min.Y - (n-1)*panelGap) / n
	left := c.Min.X
	for i, pn := range f.panels {
		pc := c
		pc.Max.Y = c.Max.Y - vg.Length(i)*(h+panelGap)
		pc.Min.Y = pc.Max.Y - h
		out = append(out, panelLayout{canvas: pc})
		left = max(left, pn.plot.DataCanvas(pc).Min.X)
	}
	for i, pn := range f.panels {
		pc := &out[i].canvas
		pc.Min.X += left - pn.plot.DataCanvas(*pc).Min.X
		out[i].data = pn.plot.DataCanvas(*pc)
		d := out[i].data.Rectangle
		if r, ok := pn.cornerBox(out[i].data); ok && side == 0 {
			out[i].side = r
			continue
		}
		switch {
		case pn.table != nil:
			sz := pn.table.size(pn.plot)
			out[i].side = vg.Rectangle{Min: vg.Point{X: d.Max.X + sideGap, Y: d.Max.Y - sz.Y}, Max: vg.Point{X: d.Max.X + sideGap + sz.X, Y: d.Max.Y}}
		case len(pn.names) > 0:
			out[i].side, _ = legendRect(pn.legend, pn.names, vg.Rectangle{Min: vg.Point{X: d.Max.X + sideGap, Y: d.Min.Y}, Max: vg.Point{X: d.Max.X + sideGap, Y: d.Max.Y}})
		}
	}
	return title, out
}

// cornersFree reports whether every panel with a legend or table can have
// it in its plot area's corner, drawn on c without a column for it.
func (f *Figure) cornersFree(c draw.Canvas) bool {
	n := vg.Length(len(f.panels))
	h := (c.Max.Y - c.Min.Y - (n-1)*panelGap) / n
	for i, pn := range f.panels {
		if pn.sideSize() == (vg.Point{}) {
			continue
		}
		pc := c
		pc.Max.Y = c.Max.Y - vg.Length(i)*(h+panelGap)
		pc.Min.Y = pc.Max.Y - h
		if _, ok := pn.cornerBox(pn.plot.DataCanvas(pc)); !ok {
			return false
		}
	}
	return true
}

// draw draws the figure on c.
func (f *Figure) draw(c draw.Canvas) {
	title, ls := f.layout(c)
	if f.title != "" && len(f.panels) > 1 {
		c.FillText(titleStyle(), title, f.title)
	}
	for i, pn := range f.panels {
		pn.plot.Draw(ls[i].canvas)
		s := ls[i].side
		switch {
		case pn.table != nil:
			pn.table.draw(c, pn.plot, s)
		case len(pn.names) > 0:
			sc := c
			sc.Rectangle = vg.Rectangle{Min: vg.Point{X: s.Min.X, Y: ls[i].data.Min.Y}, Max: vg.Point{X: c.Max.X, Y: s.Max.Y}}
			l := pn.legend
			l.Draw(sc)
		}
	}
}

// titleStyle is the style of a figure's title.
func titleStyle() text.Style {
	sty := plot.New().Title.TextStyle
	sty.Font = font.From(sans, 13)
	sty.XAlign = draw.XCenter
	return sty
}

// Encode writes the figure to w in the given format.
func (f *Figure) Encode(w io.Writer, format Format) error {
	switch format {
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(f.dpi()), vgimg.UseBackgroundColor(color.White))
		f.draw(draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	case SVG:
		c := vgsvg.New(f.Width, f.Height)
		f.draw(draw.New(c))
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
		_, err := w.Write(fixSVGFonts(buf.Bytes()))
		return err
	}
	return fmt.Errorf("plot: unknown image format %q (want png or svg)", format)
}

// SVG returns the figure as an SVG document without the XML declaration, ready
// to be inlined in HTML.
func (f *Figure) SVG() ([]byte, error) {
	var buf bytes.Buffer
	if err := f.Encode(&buf, SVG); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if i := bytes.Index(b, []byte("<svg")); i > 0 {
		b = b[i:]
	}
	return b, nil
}

// Save writes the figure to path in the format its extension names; the
// file appears only once complete (internal/atomicfile).
func (f *Figure) Save(path string) (err error) {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	// Through a temporary file: a failed write leaves no partial image.
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if err := f.Encode(w, format); err != nil {
			return fmt.Errorf("plot: writing %s: %w", path, err)
		}
		return nil
	})
}

func (f *Figure) dpi() int {
	if f.DPI > 0 {
		return f.DPI
	}
	return DefaultDPI
}

// fixSVGFonts gives the SVG's text a fallback list: gonum measures text with
// Liberation Sans, which is metric-compatible with Arial and Helvetica, so a
// viewer without Liberation lays the labels out the same.
func fixSVGFonts(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// sans is the typeface of every text in the figures.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot returns a gonum plot with this package's text style.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 13)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 9)
	}
	p.Legend.TextStyle.Font = font.From(sans, 9)
	return p
}

// palette is the Okabe–Ito colour-blind-safe palette (yellow last: it is
// faint on white).
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// seriesStyle returns the colour and dash pattern of the i-th curve: the
// palette, then the palette again dashed.
func seriesStyle(i int) (color.RGBA, []vg.Length) {
	c := palette[i%len(palette)]
	if (i/len(palette))%2 == 1 {
		return c, []vg.Length{vg.Points(6), vg.Points(3)}
	}
	return c, nil
}

// withAlpha returns c with opacity a (0–255), premultiplied as color.RGBA
// requires.
func withAlpha(c color.RGBA, a uint8) color.RGBA {
	m := func(v uint8) uint8 { return uint8(uint16(v) * uint16(a) / 255) }
	return color.RGBA{m(c.R), m(c.G), m(c.B), a}
}
