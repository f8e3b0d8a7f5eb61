package plot

import (
	"bufio"
	"bytes"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
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

// Figure is a drawn plot ready to be written.
type Figure struct {
	// Plot is the gonum plot; callers may adjust it before writing.
	Plot *plot.Plot
	// Width and Height are the figure's size; DPI is the PNG resolution.
	Width, Height vg.Length
	DPI           int
	// Notes says what could not be drawn as asked (e.g. values ≤ 0 on a log
	// axis), one sentence each; empty when everything was drawn.
	Notes []string
}

// Encode writes the figure to w in the given format.
func (f *Figure) Encode(w io.Writer, format Format) error {
	switch format {
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(f.dpi()), vgimg.UseBackgroundColor(color.White))
		f.Plot.Draw(draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	case SVG:
		c := vgsvg.New(f.Width, f.Height)
		f.Plot.Draw(draw.New(c))
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

// Save writes the figure to path in the format its extension names, keeping
// the error of Close.
func (f *Figure) Save(path string) (err error) {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := file.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	w := bufio.NewWriter(file)
	if err := f.Encode(w, format); err != nil {
		return fmt.Errorf("plot: writing %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("plot: writing %s: %w", path, err)
	}
	return nil
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
