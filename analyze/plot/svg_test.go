package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/llmstream/xk6-llmstream/internal/numfmt"
)

// svgPath is one <path> element of a gonum SVG: its points (in the canvas
// coordinates gonum uses, origin bottom left) and its style attribute.
type svgPath struct {
	pts   [][2]float64
	style string
}

var (
	pathRE  = regexp.MustCompile(`<path d="([^"]*)" style="([^"]*)"`)
	cmdRE   = regexp.MustCompile(`([MLZ])([-0-9.e+]*),?([-0-9.e+]*)`)
	textRE  = regexp.MustCompile(`(?s)<text [^>]*>([^<]*)</text>`)
	closeTo = func(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
)

func parseSVGPaths(t *testing.T, svg []byte) []svgPath {
	t.Helper()
	var out []svgPath
	for _, m := range pathRE.FindAllSubmatch(svg, -1) {
		p := svgPath{style: string(m[2])}
		for _, c := range cmdRE.FindAllStringSubmatch(string(m[1]), -1) {
			if c[1] == "Z" {
				continue
			}
			x, err1 := strconv.ParseFloat(c[2], 64)
			y, err2 := strconv.ParseFloat(c[3], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("bad path command %q in %q", c[0], m[1])
			}
			p.pts = append(p.pts, [2]float64{x, y})
		}
		out = append(out, p)
	}
	return out
}

func svgTexts(svg []byte) []string {
	var out []string
	for _, m := range textRE.FindAllSubmatch(svg, -1) {
		out = append(out, strings.TrimSpace(string(m[1])))
	}
	return out
}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// svgColor is how gonum's SVG canvas writes a translucent colour: divided
// by its alpha, truncated.
func svgColor(c color.Color) string {
	r, g, b, a := c.RGBA()
	k := 255.0 / float64(a)
	return fmt.Sprintf("#%02X%02X%02X", int(float64(r)*k), int(float64(g)*k), int(float64(b)*k))
}

// k6Percentile is k6's rule (linear at rank p·(n−1)), used here only to make
// realistic marks; the plot draws whatever value it is given.
func testPercentile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(h)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

func testSeries() []Series {
	names := []string{"concurrency=1", "concurrency=4", "concurrency=8"}
	var ss []Series
	for g, name := range names {
		v := lognormal(uint64(10+g), 5000*(g+1), 5.5+0.4*float64(g), 0.5)
		var ms []Mark
		for _, p := range []float64{0.5, 0.9, 0.99} {
			ms = append(ms, Mark{Name: fmt.Sprintf("P%g", 100*p), P: p, Value: testPercentile(v, p)})
		}
		ss = append(ss, Series{Name: name, Sorted: v, Marks: ms})
	}
	return ss
}

// transforms returns the data-to-canvas transforms of f's first panel as
// drawn on an SVG canvas, in points.
func transforms(f *Figure) (func(float64) float64, func(float64) float64) {
	return panelTransforms(f, 0)
}

// panelTransforms returns the transforms of f's i-th panel.
func panelTransforms(f *Figure, i int) (func(float64) float64, func(float64) float64) {
	c := vgsvg.New(f.Width, f.Height)
	_, ls := f.layout(draw.New(c))
	dc := ls[i].data
	trX, trY := f.panels[i].plot.Transforms(&dc)
	return func(x float64) float64 { return trX(x).Points() }, func(y float64) float64 { return trY(y).Points() }
}

func TestECDFSVGStructure(t *testing.T) {
	t.Parallel()
	for _, logX := range []bool{false, true} {
		t.Run(fmt.Sprintf("log=%v", logX), func(t *testing.T) {
			t.Parallel()
			series := testSeries()
			f, err := ECDF(series, Metric("llm_ttft"), LogX(logX))
			if err != nil {
				t.Fatal(err)
			}
			svg, err := f.SVG()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(svg, []byte("<svg")) {
				t.Errorf("SVG() does not start with <svg: %.40q", svg)
			}
			paths := parseSVGPaths(t, svg)
			trX, trY := transforms(f)
			const tol = 0.06 // gonum writes 5 significant digits
			texts := svgTexts(svg)

			for i, s := range series {
				col, _ := seriesStyle(i)
				stroke := "stroke:" + hexColor(col) + ";"
				// The curve: post-step segments only, from (min, 0) to (max, 1).
				// (A 2-point horizontal path of the same style is its legend thumbnail.)
				var curve, thumbs []svgPath
				for _, p := range paths {
					if strings.Contains(p.style, stroke) && strings.Contains(p.style, "stroke-width:1.5") {
						if len(p.pts) == 2 && p.pts[0][1] == p.pts[1][1] {
							thumbs = append(thumbs, p)
						} else {
							curve = append(curve, p)
						}
					}
				}
				if len(curve) != 1 || len(thumbs) != 1 {
					t.Fatalf("%s: %d curve paths and %d legend thumbnails, want 1 and 1", s.Name, len(curve), len(thumbs))
				}
				pts := curve[0].pts
				for j := 1; j < len(pts); j++ {
					dx, dy := pts[j][0]-pts[j-1][0], pts[j][1]-pts[j-1][1]
					if dx != 0 && dy != 0 {
						t.Fatalf("%s: segment %d from %v to %v is neither horizontal nor vertical", s.Name, j, pts[j-1], pts[j])
					}
					if dx < 0 || dy < 0 {
						t.Fatalf("%s: segment %d from %v to %v goes back", s.Name, j, pts[j-1], pts[j])
					}
					// Post-step: a horizontal run always comes before the rise.
					if j%2 == 1 && dy != 0 {
						t.Fatalf("%s: segment %d rises before running right (%v to %v)", s.Name, j, pts[j-1], pts[j])
					}
				}
				first, last := pts[0], pts[len(pts)-1]
				if !closeTo(first[0], trX(s.Sorted[0]), tol) || !closeTo(first[1], trY(0), tol) {
					t.Errorf("%s: curve starts at %v, want (%.5g, %.5g)", s.Name, first, trX(s.Sorted[0]), trY(0))
				}
				if !closeTo(last[0], trX(s.Sorted[len(s.Sorted)-1]), tol) || !closeTo(last[1], trY(1), tol) {
					t.Errorf("%s: curve ends at %v, want (%.5g, %.5g)", s.Name, last, trX(s.Sorted[len(s.Sorted)-1]), trY(1))
				}

				// Markers: one dashed vertical line per mark, at its value, from 0 up to P.
				var markers []svgPath
				for _, p := range paths {
					if strings.Contains(p.style, stroke) && strings.Contains(p.style, "stroke-dasharray:3,2") {
						markers = append(markers, p)
					}
				}
				if len(markers) != len(s.Marks) {
					t.Fatalf("%s: %d marker lines, want %d", s.Name, len(markers), len(s.Marks))
				}
				for j, m := range s.Marks {
					mp := markers[j].pts
					wantX, wantY := trX(m.Value), trY(shareAtMost(s.Sorted, m.Value))
					if len(mp) != 2 || !closeTo(mp[0][0], wantX, tol) || !closeTo(mp[1][0], wantX, tol) ||
						!closeTo(mp[0][1], trY(0), tol) || !closeTo(mp[1][1], wantY, tol) {
						t.Errorf("%s %s: marker %v, want a vertical line at x=%.5g from y=%.5g to %.5g", s.Name, m.Name, mp, wantX, trY(0), wantY)
					}
					if !onCurve(pts, mp[1], tol) {
						t.Errorf("%s %s: the marker's top %v is not on the curve", s.Name, m.Name, mp[1])
					}
					// Several curves: the values are in the legend table,
					// under a header naming the marks.
					if n := count(texts, numfmt.Sig4Unit(m.Value, "ms")); n != 1 {
						t.Errorf("%s: value %q appears %d times, want once", s.Name, numfmt.Sig4Unit(m.Value, "ms"), n)
					}
					if n := count(texts, m.Name); n != 1 {
						t.Errorf("table header %q appears %d times, want once", m.Name, n)
					}
				}
				legend := fmt.Sprintf("%s (n=%s)", s.Name, numfmt.Thousands(int64(len(s.Sorted))))
				if n := count(texts, legend); n != 1 {
					t.Errorf("legend entry %q appears %d times, want once (texts: %q)", legend, n, texts)
				}
			}
			legends := 0
			for _, tx := range texts {
				if strings.Contains(tx, "(n=") {
					legends++
				}
			}
			if legends != len(series) {
				t.Errorf("%d legend entries, want one per series (%d)", legends, len(series))
			}
		})
	}
}

// onCurve reports whether pt lies on one of the segments of the polyline
// pts (horizontal or vertical), within tol.
func onCurve(pts [][2]float64, pt [2]float64, tol float64) bool {
	for j := 1; j < len(pts); j++ {
		a, b := pts[j-1], pts[j]
		if pt[0] >= min(a[0], b[0])-tol && pt[0] <= max(a[0], b[0])+tol &&
			pt[1] >= min(a[1], b[1])-tol && pt[1] <= max(a[1], b[1])+tol {
			return true
		}
	}
	return false
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

// drawSVG draws an ECDF and returns it with its SVG.
func drawSVG(t *testing.T, series []Series, opts ...Option) (*Figure, []byte) {
	t.Helper()
	f, err := ECDF(series, opts...)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	return f, svg
}

func TestECDFBand(t *testing.T) {
	t.Parallel()
	v := lognormal(5, 400, 5, 0.6)
	f, svg := drawSVG(t, []Series{{Name: "a", Sorted: v}}, Band(0.95))
	trX, trY := transforms(f)
	eps := math.Sqrt(math.Log(2/0.05) / (2 * 400)) // DKW at 95%, n = 400: 0.0679
	var fills []svgPath
	for _, p := range parseSVGPaths(t, svg) {
		if strings.Contains(p.style, "fill:"+svgColor(withAlpha(palette[0], 0x38))+";") {
			fills = append(fills, p)
		}
	}
	if len(fills) != 1 {
		t.Fatalf("%d band polygons, want 1", len(fills))
	}
	band := fills[0].pts
	for j := 1; j < len(band); j++ {
		if band[j][0] != band[j-1][0] && band[j][1] != band[j-1][1] {
			t.Fatalf("band edge %v–%v is neither horizontal nor vertical", band[j-1], band[j])
		}
	}
	// At the median sample the band spans F ± ε.
	x := trX(v[199])
	up, lo := trY(0.5+eps), trY(0.5-eps)
	var haveUp, haveLo bool
	for _, p := range band {
		if closeTo(p[0], x, 0.06) {
			haveUp = haveUp || closeTo(p[1], up, 0.06)
			haveLo = haveLo || closeTo(p[1], lo, 0.06)
		}
	}
	if !haveUp || !haveLo {
		t.Errorf("band at x=%.5g lacks the corners y=%.5g (F+ε) and/or y=%.5g (F−ε)", x, up, lo)
	}
	if !strings.Contains(f.Plot.Title.Text, "95% DKW") {
		t.Errorf("title %q does not say what the band is", f.Plot.Title.Text)
	}
}

func TestECDFLogNonPositive(t *testing.T) {
	t.Parallel()
	v := []float64{0, 0, 0.5, 1, 2, 4, 8, 16, 32, 64}
	f, err := ECDF([]Series{{Name: "itl", Sorted: v, Marks: []Mark{{Name: "P10", P: 0.1, Value: 0}}}}, LogX(true))
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(f.Notes, "\n")
	for _, want := range []string{"itl: 2 of 10 samples (20%) are ≤ 0", "curve starts at 0.5000 ms", "P10 = 0 ms is ≤ 0 and is not marked"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	trX, trY := transforms(f)
	for _, p := range parseSVGPaths(t, svg) {
		if strings.Contains(p.style, "stroke-width:1.5") && len(p.pts) > 2 {
			if !closeTo(p.pts[0][0], trX(0.5), 0.06) || !closeTo(p.pts[0][1], trY(0.2), 0.06) {
				t.Errorf("log curve starts at %v, want (%.5g, %.5g): x of the smallest positive value, y of the share ≤ 0", p.pts[0], trX(0.5), trY(0.2))
			}
		}
	}
	if _, err := ECDF([]Series{{Name: "zeros", Sorted: []float64{0, 0}}}, LogX(true)); err == nil || !strings.Contains(err.Error(), `"zeros": all 2 samples are ≤ 0`) {
		t.Errorf("all-zero series on a log axis: error %v", err)
	}
}

func TestECDFBadInput(t *testing.T) {
	t.Parallel()
	if _, err := ECDF(nil); err != ErrNoData {
		t.Errorf("no series: %v, want ErrNoData", err)
	}
	if _, err := ECDF([]Series{{Name: "a", Sorted: []float64{1}}, {Name: "empty"}}); err == nil || !strings.Contains(err.Error(), `"empty" has no samples`) {
		t.Errorf("empty series: %v", err)
	}
	if _, err := ECDF([]Series{{Name: "u", Sorted: []float64{2, 1}}}); err == nil || !strings.Contains(err.Error(), `"u"`) {
		t.Errorf("unsorted series: %v", err)
	}
	if _, err := ECDF([]Series{{Name: "a", Sorted: []float64{1}}}, Band(1.5)); err == nil {
		t.Error("band level 1.5 accepted")
	}
}

// TestECDFLegendTable draws five curves of few samples with close
// percentiles: their values go into one legend table, right of the plot
// area and outside it, each once, and no label box is drawn beside the
// dots (where they would collide).
func TestECDFLegendTable(t *testing.T) {
	t.Parallel()
	var series []Series
	for g := range 5 {
		v := lognormal(uint64(30+g), 30, 5.2+0.02*float64(g), 0.3)
		var ms []Mark
		for _, p := range []float64{0.5, 0.9, 0.99} {
			ms = append(ms, Mark{Name: fmt.Sprintf("P%g", 100*p), P: p, Value: testPercentile(v, p)})
		}
		series = append(series, Series{Name: fmt.Sprintf("g%d", g), Sorted: v, Marks: ms})
	}
	f, svg := drawSVG(t, series)
	trX, _ := transforms(f)
	x1 := trX(f.Plot.X.Max)
	tables := 0
	for _, p := range parseSVGPaths(t, svg) {
		switch {
		case p.style == "fill:"+svgColor(tableBoxColor) && len(p.pts) == 4:
			tables++
			for _, pt := range p.pts {
				if pt[0] <= x1 || pt[0] > f.Width.Points() {
					t.Errorf("table corner %v not right of the plot area (x > %.2f)", pt, x1)
				}
			}
		}
	}
	texts := svgTexts(svg)
	if tables != 1 {
		t.Errorf("%d legend tables, want 1", tables)
	}
	if strings.Contains(strings.Join(texts, " "), "p(N), linear between samples") {
		t.Error("a note on the figure explains the dots: that is the docs' job")
	}
	for _, s := range series {
		for _, m := range s.Marks {
			if strings.Contains(strings.Join(texts, "|"), m.Name+" "+numfmt.Sig4Unit(m.Value, "ms")) {
				t.Errorf("%s: a label %s beside its dot", s.Name, m.Name)
			}
			if count(texts, numfmt.Sig4Unit(m.Value, "ms")) < 1 {
				t.Errorf("%s: %s's value is not in the table", s.Name, m.Name)
			}
		}
	}
}
