package plot

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// dotRE matches a circle gonum draws as a path: M(x+r, y) then two arcs.
var dotRE = regexp.MustCompile(`<path d="M([-0-9.e+]+),([-0-9.e+]+)A([-0-9.e+]+),[-0-9.e+]+ [^"]*" style="([^"]*)"`)

// drawnData is what an SVG shows of the data: every stroked line that is
// not an axis, a tick or the grid (curves, marker lines, SLO limits, the
// knee, change lines), as segments, and every dot, as a segment of length 0
// grown by its radius.
func drawnData(t *testing.T, svg []byte) *obstacles {
	t.Helper()
	o := &obstacles{}
	for _, p := range parseSVGPaths(t, svg) {
		if !strings.Contains(p.style, "stroke:#") || strings.Contains(p.style, "stroke:#000000") || strings.Contains(p.style, "stroke:#808080") {
			continue
		}
		w := 1.0
		if m := regexp.MustCompile(`stroke-width:([0-9.]+)`).FindStringSubmatch(p.style); m != nil {
			w, _ = strconv.ParseFloat(m[1], 64)
		}
		var pts []vg.Point
		for _, pt := range p.pts {
			pts = append(pts, vg.Point{X: vg.Length(pt[0]), Y: vg.Length(pt[1])})
		}
		o.polyline(pts, vg.Length(w/2))
	}
	for _, m := range dotRE.FindAllSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(string(m[1]), 64)
		y, _ := strconv.ParseFloat(string(m[2]), 64)
		r, _ := strconv.ParseFloat(string(m[3]), 64)
		c := vg.Point{X: vg.Length(x - r), Y: vg.Length(y)}
		o.add(c, c, vg.Length(r))
	}
	return o
}

// labelledTicks counts the labelled ticks an axis shows.
func labelledTicks(a plot.Axis) int {
	n := 0
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Label != "" && tk.Value >= a.Min && tk.Value <= a.Max {
			n++
		}
	}
	return n
}

// checkLayout checks a figure as drawn: in every panel, no label box meets
// a drawn line or dot, the legend (or value table) lies right of the data
// area and meets no data, and each axis has at least 4 labelled ticks. It
// returns the number of labels placed.
func checkLayout(t *testing.T, name string, f *Figure) int {
	t.Helper()
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	data := drawnData(t, svg)
	if len(data.segs) == 0 {
		t.Fatalf("%s: no data found in the SVG", name)
	}
	_, ls := f.layout(draw.New(vgsvg.New(f.Width, f.Height)))
	labels := 0
	for i, pn := range f.panels {
		area := ls[i].data
		for _, l := range pn.labels {
			for _, b := range l.boxes(area, pn.plot) {
				labels++
				if n := data.hits(b, true); n > 0 {
					t.Errorf("%s panel %d: the label box %v meets %d drawn segments or dots", name, i, b, n)
				}
				if !inside(b, area.Rectangle, 0) {
					t.Errorf("%s panel %d: the label box %v is not inside the data area %v", name, i, b, area.Rectangle)
				}
			}
		}
		if side := ls[i].side; side != (vg.Rectangle{}) {
			if side.Max.X > f.Width {
				t.Errorf("%s panel %d: the legend %v is cut by the figure's right edge %v", name, i, side, f.Width)
			}
			if side.Min.X < area.Max.X {
				// In the plot area's corner: no data there but the
				// legend's own thumbnails (horizontal, at its left).
				thumbs := side.Min.X + pn.legend.ThumbnailWidth + tablePad + vg.Points(1)
				for j, s := range data.segs {
					if s.a.Y == s.b.Y && s.a.X >= side.Min.X-vg.Points(0.5) && s.b.X >= side.Min.X-vg.Points(0.5) && s.a.X <= thumbs && s.b.X <= thumbs && s.a.Y <= side.Max.Y && s.a.Y >= side.Min.Y {
						continue
					}
					if segmentHitsRect(s, grow(side, data.grow[j])) {
						t.Errorf("%s panel %d: the legend %v in the plot area meets the drawn segment %v", name, i, side, s)
						break
					}
				}
				if !inside(side, area.Rectangle, 0) {
					t.Errorf("%s panel %d: the legend %v straddles the plot area's edge %v", name, i, side, area.Rectangle)
				}
			} else {
				// Beside the plot: only its own thumbnails are lines
				// there; its text meets no data.
				thumb := pn.legend.ThumbnailWidth
				inner := vg.Rectangle{Min: vg.Point{X: side.Min.X + thumb + vg.Points(2), Y: side.Min.Y}, Max: side.Max}
				if n := data.hits(inner, true); n > 0 && pn.table == nil {
					t.Errorf("%s panel %d: the legend's text %v meets %d drawn segments", name, i, inner, n)
				}
			}
		}
		for _, ax := range []struct {
			name string
			a    plot.Axis
		}{{"x", pn.plot.X}, {"y", pn.plot.Y}} {
			if n := labelledTicks(ax.a); n < 4 {
				t.Errorf("%s panel %d: %d labelled ticks on the %s axis, want ≥ 4", name, i, n, ax.name)
			}
		}
	}
	return labels
}

// TestLayoutECDFThreeGroups: three curves, their values in a table right
// of the plot, no label on the data, ≥ 4 labels per axis (linear and log).
func TestLayoutECDFThreeGroups(t *testing.T) {
	t.Parallel()
	for _, logX := range []bool{false, true} {
		f, err := ECDF(testSeries(), Metric("llm_ttft"), LogX(logX), Band(0.95))
		if err != nil {
			t.Fatal(err)
		}
		if f.panels[0].table == nil {
			t.Fatal("three marked curves and no value table")
		}
		checkLayout(t, "ecdf", f)
	}
}

// TestLayoutECDFLabels: the labels of one curve's marks (few samples, so
// the curve has long steps near the dots; many samples; a log axis; a
// small figure) meet no step of the curve, no marker line and no dot.
func TestLayoutECDFLabels(t *testing.T) {
	t.Parallel()
	for _, n := range []int{12, 40, 3000} {
		for _, size := range [][2]vg.Length{{DefaultWidth, DefaultHeight}, {5 * vg.Inch, 3 * vg.Inch}} {
			for _, logX := range []bool{false, true} {
				v := lognormal(uint64(n), n, 6, 0.6)
				var ms []Mark
				for _, p := range []float64{0.5, 0.9, 0.99} {
					ms = append(ms, Mark{Name: "P" + strconv.FormatFloat(100*p, 'f', -1, 64), P: p, Value: testPercentile(v, p)})
				}
				f, err := ECDF([]Series{{Name: "a", Sorted: v, Marks: ms}}, LogX(logX), Size(size[0], size[1]))
				if err != nil {
					t.Fatal(err)
				}
				name := "ecdf n=" + strconv.Itoa(n) + " log=" + strconv.FormatBool(logX) + " w=" + strconv.FormatFloat(size[0].Points(), 'f', 0, 64)
				if got := checkLayout(t, name, f); got != len(ms) {
					t.Errorf("%s: %d labels, want %d", name, got, len(ms))
				}
			}
		}
	}
}

// TestLayoutCapacity: TTFT (hundreds to thousands of ms) and TPOT (tens)
// in panels of their own, each y axis spanning its own curves (TPOT's
// limit of 50 ms is not flattened at the bottom of a 3000 ms axis), the
// legends beside the panels, ≥ 4 labels per axis, the x axes aligned.
func TestLayoutCapacity(t *testing.T) {
	t.Parallel()
	lat, knee := capacityTestCurves()
	f, err := LatencyVsThroughput([]CapacityPanel{{Name: "TTFT", Curves: lat[:3]}, {Name: "TPOT", Curves: lat[3:]}}, knee)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.panels) != 2 {
		t.Fatalf("%d panels, want 2", len(f.panels))
	}
	checkLayout(t, "capacity", f)
	for i, top := range []float64{2600, 55} {
		y := f.panels[i].plot.Y
		if y.Max < top || y.Max > 1.5*top {
			t.Errorf("panel %d: y axis up to %g for data up to %g", i, y.Max, top)
		}
	}
	_, ls := f.layout(draw.New(vgsvg.New(f.Width, f.Height)))
	if a, b := ls[0].data.Rectangle, ls[1].data.Rectangle; math.Abs(float64(a.Min.X-b.Min.X)) > 1e-9 || math.Abs(float64(a.Max.X-b.Max.X)) > 1e-9 || a.Min.Y < b.Max.Y {
		t.Errorf("panels' data areas %v and %v: not aligned, or overlapping", a, b)
	}
	// A panel without points is left out; none at all is ErrNoData.
	g, err := LatencyVsThroughput([]CapacityPanel{{Name: "TTFT", Curves: lat[:3]}, {Name: "TPOT", Curves: []CapacityCurve{{Name: "TPOT p(50)", Limit: math.NaN()}}}}, knee)
	if err != nil || len(g.panels) != 1 {
		t.Errorf("one panel with points: err %v, panels %d", err, len(g.panels))
	}
	if _, err := LatencyVsThroughput([]CapacityPanel{{Name: "TPOT"}}, knee); err != ErrNoData {
		t.Errorf("no points: err %v, want ErrNoData", err)
	}
	gp, err := GoodputVsOffered([]CapacityCurve{
		{Name: "goodput", Points: XYs{{X: 2, Y: 2}, {X: 4, Y: 3.9}, {X: 8, Y: 7.5}}, Limit: math.NaN()}, IdealLine(8)}, 4, "req/s")
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, "goodput", gp)
}

// TestLayoutTrend: the change labels meet no trend line or dot, the legend
// is beside the plot, each axis has ≥ 4 labels, and the calendar labels are
// unique — over a month of daily runs, a day of hourly runs and one run.
func TestLayoutTrend(t *testing.T) {
	t.Parallel()
	series, marks := trendTestSeries(24)
	cases := map[string]func() (*Figure, error){
		"daily": func() (*Figure, error) { return Trend(series, marks, Metric("llm_ttft")) },
		"hourly": func() (*Figure, error) {
			s := hourly(series)
			return Trend(s, []TrendMark{{Time: s[0].Lines[0].Points[7].Time, Label: "release 2026.03.01-rc1"}}, Metric("llm_ttft"))
		},
		"one run": func() (*Figure, error) {
			one := []TrendSeries{{Lines: []TrendLine{{Name: "P50", Points: series[0].Lines[0].Points[:1]}}}}
			return Trend(one, nil, Metric("llm_ttft"))
		},
	}
	for name, mk := range cases {
		f, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		labels := checkLayout(t, "trend "+name, f)
		if name != "one run" && labels == 0 {
			t.Errorf("%s: no change label placed", name)
		}
		x := f.Plot.X
		seen := map[string]bool{}
		for _, tk := range x.Tick.Marker.Ticks(x.Min, x.Max) {
			if tk.Label == "" {
				continue
			}
			if seen[tk.Label] {
				t.Errorf("%s: the x label %q is repeated", name, tk.Label)
			}
			seen[tk.Label] = true
		}
		if f.Plot.X.Label.Text == "" || f.Plot.Y.Label.Text == "" {
			t.Errorf("%s: axis labels %q, %q", name, f.Plot.X.Label.Text, f.Plot.Y.Label.Text)
		}
	}
}

// hourly is the series with runs an hour apart instead of a day.
func hourly(series []TrendSeries) []TrendSeries {
	var out []TrendSeries
	for _, s := range series {
		ns := TrendSeries{Name: s.Name}
		for _, l := range s.Lines {
			nl := TrendLine{Name: l.Name}
			for k, p := range l.Points {
				p.Time = l.Points[0].Time.Add(time.Duration(k) * time.Hour)
				nl.Points = append(nl.Points, p)
			}
			ns.Lines = append(ns.Lines, nl)
		}
		out = append(out, ns)
	}
	return out
}
