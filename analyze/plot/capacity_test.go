package plot

import (
	"math"
	"strings"
	"testing"
)

// TestLatencyVsThroughputSVG: each curve is one line with one vertex per
// level at its (throughput, latency); its SLO limit a dashed horizontal line
// at the limit; the knee a vertical line at its throughput.
func TestLatencyVsThroughputSVG(t *testing.T) {
	t.Parallel()
	curves := []CapacityCurve{
		{Name: "TTFT p50", Points: XYs{{X: 2, Y: 200}, {X: 4, Y: 205}, {X: 7.9, Y: 240}, {X: 10.6, Y: 900}}, Limit: math.NaN()},
		{Name: "TTFT p99", Points: XYs{{X: 2, Y: 210}, {X: 4, Y: 230}, {X: 7.9, Y: 380}, {X: 10.6, Y: 2600}}, Limit: 1000},
	}
	knee := 7.9
	f, err := LatencyVsThroughput([]CapacityPanel{{Name: "TTFT", Curves: curves}}, knee)
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
	for i, c := range curves {
		col, _ := seriesStyle(i)
		stroke := "stroke:" + hexColor(col) + ";"
		var line *svgPath
		var limits []svgPath
		for j, p := range paths {
			switch {
			case strings.Contains(p.style, stroke) && strings.Contains(p.style, "stroke-width:1.4") && len(p.pts) == len(c.Points):
				line = &paths[j]
			case strings.Contains(p.style, stroke) && strings.Contains(p.style, "stroke-dasharray:5,3"):
				limits = append(limits, p)
			}
		}
		if line == nil {
			t.Fatalf("%s: no line with one vertex per level (%d)", c.Name, len(c.Points))
		}
		for j, pt := range c.Points {
			if got := line.pts[j]; !closeTo(got[0], trX(pt.X), tol) || !closeTo(got[1], trY(pt.Y), tol) {
				t.Errorf("%s level %d: vertex %v, want (%.5g, %.5g)", c.Name, j, got, trX(pt.X), trY(pt.Y))
			}
		}
		if math.IsNaN(c.Limit) {
			if len(limits) != 0 {
				t.Errorf("%s: %d limit lines without a limit", c.Name, len(limits))
			}
			continue
		}
		// The limit across the plot from x = 0, and its legend thumbnail.
		found := false
		for _, p := range limits {
			if len(p.pts) == 2 && closeTo(p.pts[0][1], trY(c.Limit), tol) && closeTo(p.pts[1][1], trY(c.Limit), tol) && closeTo(p.pts[0][0], trX(0), tol) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no horizontal line at the limit %g (y %.5g) among %v", c.Name, c.Limit, trY(c.Limit), limits)
		}
	}
	kneeStroke := "stroke:" + hexColor(kneeColor) + ";"
	found := false
	for _, p := range paths {
		if strings.Contains(p.style, kneeStroke) && len(p.pts) == 2 && closeTo(p.pts[0][0], trX(knee), tol) && closeTo(p.pts[1][0], trX(knee), tol) && closeTo(p.pts[0][1], trY(0), tol) {
			found = true
		}
	}
	if !found {
		t.Errorf("no vertical knee line at x %.5g", trX(knee))
	}
}

// TestGoodputVsOfferedNoData: nothing to draw is ErrNoData.
func TestGoodputVsOfferedNoData(t *testing.T) {
	t.Parallel()
	if _, err := GoodputVsOffered([]CapacityCurve{{Name: "goodput", Limit: math.NaN()}}, math.NaN(), "req/s"); err != ErrNoData {
		t.Errorf("err %v, want ErrNoData", err)
	}
}
