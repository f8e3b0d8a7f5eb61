package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"
	"time"
)

// trendTestSeries is two series of runs with three percentiles each: some
// runs cannot bound their interval (a gap in the band), one did not record
// the metric (a gap in the line), and some are flagged.
func trendTestSeries(runs int) ([]TrendSeries, []TrendMark) {
	day := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	var out []TrendSeries
	for s := 0; s < 2; s++ {
		ts := TrendSeries{Name: fmt.Sprintf("model=m%d", s)}
		for j, p := range []float64{50, 90, 99} {
			tl := TrendLine{Name: fmt.Sprintf("P%g", p)}
			for k := 0; k < runs; k++ {
				v := (100 + 50*float64(s)) * (1 + p/50) * (1 + 0.01*float64(k) + 0.003*float64(k%3))
				pt := TrendPoint{Time: day.Add(time.Duration(k) * 24 * time.Hour), Value: v, Lo: 0.95 * v, Hi: 1.05 * v}
				switch {
				case j == 2 && k%7 == 3:
					pt.Hi = math.Inf(1) // too few samples above P99
				case s == 1 && k == 5:
					pt.Value, pt.Lo, pt.Hi = math.NaN(), math.NaN(), math.NaN()
				}
				pt.Alert = k == runs-1 && j == 0
				tl.Points = append(tl.Points, pt)
			}
			ts.Lines = append(ts.Lines, tl)
		}
		out = append(out, ts)
	}
	marks := []TrendMark{{Time: day.Add(10 * 24 * time.Hour), Label: "v1.5.0"}, {Time: day.Add(20 * 24 * time.Hour), Label: "v1.6.0"}}
	return out, marks
}

func dashStyle(j int) string {
	d := driftDashes[j%len(driftDashes)]
	if d == nil {
		return ""
	}
	parts := make([]string, len(d))
	for i, v := range d {
		parts[i] = fmt.Sprintf("%g", v.Points())
	}
	return "stroke-dasharray:" + strings.Join(parts, ",")
}

func TestTrendSVGGeometry(t *testing.T) {
	t.Parallel()
	const runs = 24
	series, marks := trendTestSeries(runs)
	f, err := Trend(series, marks, Metric("llm_ttft"))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	paths := parseSVGPaths(t, svg)
	trX, trY := transforms(f)
	const tol = 0.06
	for i, s := range series {
		col, _ := seriesStyle(i)
		for j, tl := range s.Lines {
			stroke, dash := "stroke:"+hexColor(col)+";", dashStyle(j)
			// The line: one vertex per run with a value, at its time and value.
			var verts [][2]float64
			for _, p := range paths {
				isDash := dash == "" && !strings.Contains(p.style, "dasharray") || dash != "" && strings.Contains(p.style, dash)
				if strings.Contains(p.style, stroke) && strings.Contains(p.style, "stroke-width:1.4") && isDash &&
					!(len(p.pts) == 2 && p.pts[0][1] == p.pts[1][1]) { // not the legend thumbnail
					verts = append(verts, p.pts...)
				}
			}
			var want [][2]float64
			bands, run := 0, 0
			for _, pt := range tl.Points {
				if !math.IsNaN(pt.Value) {
					want = append(want, [2]float64{trX(unixSeconds(pt.Time)), trY(pt.Value)})
				}
				if finite(pt.Value) && finite(pt.Hi) {
					run++
				} else if run > 0 {
					bands, run = bands+1, 0
				}
			}
			if run > 0 {
				bands++
			}
			if len(verts) != len(want) {
				t.Fatalf("%s %s: %d line vertices, want one per run with a value (%d)", s.Name, tl.Name, len(verts), len(want))
			}
			for k := range want {
				if !closeTo(verts[k][0], want[k][0], tol) || !closeTo(verts[k][1], want[k][1], tol) {
					t.Errorf("%s %s: vertex %d at %v, want %v", s.Name, tl.Name, k, verts[k], want[k])
				}
			}
			if bands == 0 {
				t.Fatalf("%s %s: the test has no band", s.Name, tl.Name)
			}
		}
		checkTrendBands(t, paths, s, col, trX, trY)
		// Dots: one per run with a value and one per legend entry.
		dots := 0
		for _, p := range paths {
			if p.style == "fill:"+hexColor(col) && len(p.pts) == 1 {
				dots++
			}
		}
		wantDots := 0
		for _, tl := range s.Lines {
			wantDots++ // the legend's
			for _, pt := range tl.Points {
				if !math.IsNaN(pt.Value) {
					wantDots++
				}
			}
		}
		if dots != wantDots {
			t.Errorf("%s: %d dots, want %d (one per run and line, one per legend entry)", s.Name, dots, wantDots)
		}
	}
	rings, lines := 0, 0
	for _, p := range paths {
		if strings.Contains(p.style, "stroke:#CC0000") {
			rings++
		}
		if strings.Contains(p.style, "stroke:#666666") && strings.Contains(p.style, "dasharray:1,2") {
			lines++
			if x := trX(unixSeconds(marks[lines-1].Time)); !closeTo(p.pts[0][0], x, tol) || p.pts[0][0] != p.pts[1][0] {
				t.Errorf("change mark %d at %v, want a vertical line at x=%.5g", lines, p.pts, x)
			}
		}
	}
	if rings != 2 || lines != len(marks) {
		t.Errorf("%d alert rings and %d change lines, want 2 and %d", rings, lines, len(marks))
	}
	texts := svgTexts(svg)
	for _, m := range marks {
		if count(texts, m.Label) != 1 {
			t.Errorf("change label %q appears %d times, want once", m.Label, count(texts, m.Label))
		}
	}
}

// checkTrendBands checks the shaded intervals of a series: one polygon per
// run of consecutive bounded points (the upper edge through each Hi, then the
// lower edge back through each Lo), a bar for a lone bounded point, and
// nothing where an interval is unbounded.
func checkTrendBands(t *testing.T, paths []svgPath, s TrendSeries, col color.RGBA, trX, trY func(float64) float64) {
	t.Helper()
	const tol = 0.06
	fill := "fill:" + svgColor(withAlpha(col, trendBandAlpha)) + ";"
	var polys []svgPath
	bars := 0
	for _, p := range paths {
		switch {
		case strings.HasPrefix(p.style, fill):
			polys = append(polys, p)
		case strings.Contains(p.style, "stroke:"+svgColor(withAlpha(col, trendBandAlpha))+";stroke-opacity"):
			bars++
		}
	}
	var want [][][2]float64
	wantBars := 0
	for _, tl := range s.Lines {
		for _, b := range trendBands(tl.Points) {
			if len(b) == 1 {
				wantBars++
				continue
			}
			var v [][2]float64
			for _, p := range b {
				v = append(v, [2]float64{trX(p.x), trY(p.hi)})
			}
			for k := len(b) - 1; k >= 0; k-- {
				v = append(v, [2]float64{trX(b[k].x), trY(b[k].lo)})
			}
			want = append(want, v)
		}
	}
	if len(polys) != len(want) || bars != wantBars {
		t.Fatalf("%s: %d band polygons and %d bars, want %d and %d", s.Name, len(polys), bars, len(want), wantBars)
	}
	for i, w := range want {
		if len(polys[i].pts) != len(w) {
			t.Fatalf("%s: band %d has %d vertices, want %d (two per run)", s.Name, i, len(polys[i].pts), len(w))
		}
		for k := range w {
			if !closeTo(polys[i].pts[k][0], w[k][0], tol) || !closeTo(polys[i].pts[k][1], w[k][1], tol) {
				t.Errorf("%s: band %d vertex %d at %v, want %v", s.Name, i, k, polys[i].pts[k], w[k])
			}
		}
	}
}
