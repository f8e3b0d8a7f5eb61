package plot

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// previewFigures are the figures of every kind the layout tests check: an
// ECDF of one group and of three, the capacity figures and a trend.
func previewFigures(t *testing.T) map[string]*Figure {
	t.Helper()
	figs := map[string]*Figure{}
	add := func(name string, f *Figure, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		figs[name] = f
	}
	three := testSeries()
	f, err := ECDF(three, Metric("llm_ttft"))
	add("ecdf-three", f, err)
	f, err = ECDF(three, Metric("llm_ttft"), LogX(true), Band(0.95))
	add("ecdf-three-log", f, err)
	f, err = ECDF(three[:1], Metric("llm_ttft"))
	add("ecdf-one", f, err)
	few := lognormal(3, 40, 6, 0.6)
	var ms []Mark
	for _, p := range []float64{0.5, 0.9, 0.99} {
		ms = append(ms, Mark{Name: fmt.Sprintf("P%g", 100*p), P: p, Value: testPercentile(few, p)})
	}
	f, err = ECDF([]Series{{Name: "", Sorted: few, Marks: ms}}, Metric("llm_ttft"))
	add("ecdf-few", f, err)
	lat, knee := capacityTestCurves()
	f, err = LatencyVsThroughput([]CapacityPanel{{Name: "TTFT", Curves: lat[:3]}, {Name: "TPOT", Curves: lat[3:]}}, knee)
	add("capacity-latency", f, err)
	f, err = GoodputVsOffered([]CapacityCurve{
		{Name: "goodput", Points: XYs{{X: 2, Y: 2}, {X: 4, Y: 3.9}, {X: 8, Y: 7.5}, {X: 12, Y: 6}}, Limit: math.NaN()},
		{Name: "achieved", Points: XYs{{X: 2, Y: 2}, {X: 4, Y: 4}, {X: 8, Y: 7.9}, {X: 12, Y: 10.6}}, Limit: math.NaN()},
		IdealLine(12)}, 8, "req/s")
	add("capacity-goodput", f, err)
	series, marks := trendTestSeries(24)
	f, err = Trend(series, marks, Metric("llm_ttft"))
	add("trend", f, err)
	return figs
}

// capacityTestCurves are TTFT and TPOT percentiles of a sweep of four
// levels, TTFT in the thousands of ms and TPOT in the tens, with SLO limits
// on both P99s, and the knee.
func capacityTestCurves() ([]CapacityCurve, float64) {
	tp := []float64{2, 4, 7.9, 10.6}
	mk := func(name string, ys []float64, limit float64) CapacityCurve {
		c := CapacityCurve{Name: name, Limit: limit}
		for i, y := range ys {
			c.Points = append(c.Points, plotter.XY{X: tp[i], Y: y})
		}
		return c
	}
	return []CapacityCurve{
		mk("TTFT p(50)", []float64{200, 205, 240, 900}, math.NaN()),
		mk("TTFT p(90)", []float64{205, 215, 300, 1800}, math.NaN()),
		mk("TTFT p(99)", []float64{210, 230, 380, 2600}, 1000),
		mk("TPOT p(50)", []float64{20, 21, 24, 31}, math.NaN()),
		mk("TPOT p(90)", []float64{22, 24, 28, 40}, math.NaN()),
		mk("TPOT p(99)", []float64{25, 27, 33, 55}, 50),
	}, 7.9
}

// TestPreview writes every figure kind as PNG and SVG into PLOT_PREVIEW
// (a directory) to be looked at; skipped without it.
func TestPreview(t *testing.T) {
	dir := os.Getenv("PLOT_PREVIEW")
	if dir == "" {
		t.Skip("set PLOT_PREVIEW to a directory to write the figures there")
	}
	for name, f := range previewFigures(t) {
		for _, ext := range []string{".png", ".svg"} {
			if err := f.Save(filepath.Join(dir, name+ext)); err != nil {
				t.Error(err)
			}
		}
	}
}
