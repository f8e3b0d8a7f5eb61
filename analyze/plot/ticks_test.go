package plot

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// labels returns the labelled values of a ticker over the axis' range.
func labels(t *testing.T, a logAxis) []float64 {
	t.Helper()
	var out []float64
	for _, tk := range a.Ticks(a.lo, a.hi) {
		if tk.Label == "" {
			continue
		}
		v, err := strconv.ParseFloat(tk.Label, 64)
		if err != nil {
			t.Fatalf("label %q is not a plain number", tk.Label)
		}
		if math.Abs(v-tk.Value) > 1e-9*tk.Value {
			t.Fatalf("label %q stands at %v", tk.Label, tk.Value)
		}
		out = append(out, v)
	}
	return out
}

func TestLogAxisLabels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lo, hi float64
		width  vg.Length
		want   []float64 // nil: only the general rules are checked
	}{
		// The fixture's TTFT (108–3827 ms): 1-2-5, widened to 100–5000.
		{107.9, 3826.8, DefaultWidth, []float64{100, 200, 500, 1000, 2000, 5000}},
		// TPOT of 10.8–40.2 ms: 1-2-5 gives only 10, 20, 50; every 1–9 × 10ᵏ.
		{10.8, 40.19, DefaultWidth, []float64{10, 20, 30, 40, 50}},
		// ITL of 3–289 ms.
		{3.0, 288.9, DefaultWidth, []float64{2, 5, 10, 20, 50, 100, 200, 500}},
		// The same on a narrow figure: sparser (powers of ten alone would
		// give only 10 and 100).
		{3.0, 288.9, 3 * vg.Inch, []float64{3, 10, 30, 100, 300}},
		// Seven samples from 360 to 840 ms.
		{360, 840, DefaultWidth, []float64{300, 400, 500, 600, 700, 800, 900}},
		{0.0123, 0.456, DefaultWidth, []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5}},
		{0.01, 1e6, 3 * vg.Inch, []float64{0.001, 1, 1000, 1e6}}, // eight decades on a narrow axis
		{1e-3, 1e9, DefaultWidth, nil},                           // twelve
		{610, 690, DefaultWidth, nil},                            // a narrow range: linear labels
		{1000, 1000, DefaultWidth, nil},                          // one value
		{1234, 1234, DefaultWidth, nil},
	} {
		name := fmt.Sprintf("%g–%g at %v", tc.lo, tc.hi, tc.width)
		maxN := maxLabels(tc.width)
		a := newLogAxis(tc.lo, tc.hi, maxN)
		got := labels(t, a)
		if tc.want != nil && !slices.Equal(got, tc.want) {
			t.Errorf("%s: labels %v, want %v", name, got, tc.want)
		}
		// At most maxN, or a few more where fewer would leave under 3.
		if len(got) < minLogLabels || len(got) > max(maxN, 5) {
			t.Errorf("%s: %d labels %v, want %d to %d", name, len(got), got, minLogLabels, maxN)
		}
		if !slices.IsSorted(got) || got[0] < a.lo*(1-1e-9) || got[len(got)-1] > a.hi*(1+1e-9) {
			t.Errorf("%s: labels %v outside the axis %g–%g", name, got, a.lo, a.hi)
		}
		if a.lo > tc.lo || a.hi < tc.hi {
			t.Errorf("%s: the axis %g–%g does not hold the data", name, a.lo, a.hi)
		}
		if tc.hi > tc.lo && math.Log(a.hi/a.lo) > maxWiden*math.Log(tc.hi/tc.lo)*(1+1e-9) {
			t.Errorf("%s: the axis %g–%g is widened more than %g× the data's decades", name, a.lo, a.hi, maxWiden)
		}
	}
}

// TestECDFLogAxisAndLabelsInside draws ECDFs whose marks sit at the edges of
// the plot area (few samples: P99 at the largest value, at the right edge
// and near the top), on log and linear axes and small and large figures, and
// checks in the SVG that the value axis is labelled at least three times and
// that every mark's label box lies inside the plot area.
func TestECDFLogAxisAndLabelsInside(t *testing.T) {
	t.Parallel()
	labelBox := "fill:" + svgColor(labelBoxColor) + ";fill-opacity:"
	for _, n := range []int{7, 40, 3000} {
		for _, logX := range []bool{true, false} {
			for _, size := range [][2]vg.Length{{DefaultWidth, DefaultHeight}, {3.4 * vg.Inch, 2.1 * vg.Inch}} {
				name := fmt.Sprintf("n=%d log=%v size=%v", n, logX, size)
				v := lognormal(uint64(n), n, 6.2, 0.4)
				var marks []Mark
				for _, p := range []float64{50, 90, 99, 99.9} {
					marks = append(marks, Mark{Name: fmt.Sprintf("P%g", p), P: p / 100, Value: testPercentile(v, p/100)})
				}
				f, svg := drawSVG(t, []Series{{Name: "a", Sorted: v, Marks: marks}}, LogX(logX), Size(size[0], size[1]))
				trX, trY := transforms(f)
				x0, x1, y0, y1 := trX(f.Plot.X.Min), trX(f.Plot.X.Max), trY(0), trY(1)
				var boxes [][2][2]float64 // min and max corners
				for _, p := range parseSVGPaths(t, svg) {
					if !strings.Contains(p.style, labelBox) {
						continue
					}
					b := [2][2]float64{{math.Inf(1), math.Inf(1)}, {math.Inf(-1), math.Inf(-1)}}
					for _, pt := range p.pts {
						if pt[0] < x0-0.01 || pt[0] > x1+0.01 || pt[1] < y0-0.01 || pt[1] > y1+0.01 {
							t.Errorf("%s: a label box corner %v lies outside the plot area x %.2f–%.2f, y %.2f–%.2f", name, pt, x0, x1, y0, y1)
						}
						b[0] = [2]float64{min(b[0][0], pt[0]), min(b[0][1], pt[1])}
						b[1] = [2]float64{max(b[1][0], pt[0]), max(b[1][1], pt[1])}
					}
					for _, o := range boxes {
						if b[0][0] < o[1][0] && o[0][0] < b[1][0] && b[0][1] < o[1][1] && o[0][1] < b[1][1] {
							t.Errorf("%s: label boxes %v and %v intersect", name, b, o)
						}
					}
					boxes = append(boxes, b)
				}
				// One box per mark, and no note: the rule the dots follow
				// is explained in docs/plots.md, not on the figure.
				if len(boxes) != len(marks) {
					t.Errorf("%s: %d label boxes, want %d", name, len(boxes), len(marks))
				}
				if strings.Contains(strings.Join(svgTexts(svg), " "), "p(N), linear between samples") {
					t.Errorf("%s: the rule's note is drawn on the figure", name)
				}
				if logX {
					if n := axisLabels(svg); n < minLogLabels {
						t.Errorf("%s: %d labels on the log axis, want ≥ %d", name, n, minLogLabels)
					}
				}
			}
		}
	}
}

var numberText = regexp.MustCompile(`>(-?[0-9]+(?:\.[0-9]+)?)</text>`)

// axisLabels counts the numeric texts of the SVG that are not the
// probability axis' labels (0, 0.25, 0.5, 0.75, 0.9, 1).
func axisLabels(svg []byte) int {
	n := 0
	for _, m := range numberText.FindAllSubmatch(svg, -1) {
		switch string(m[1]) {
		case "0", "0.25", "0.5", "0.75", "0.9", "1":
			continue
		}
		n++
	}
	return n
}

// TestRoundTicks checks linear axes: labels at multiples of a 1, 2 or 5 ×
// 10ᵏ step, 4 to 8 of them at the default size, written without decimals
// the step does not have, and an axis widened to start and end at labels.
func TestRoundTicks(t *testing.T) {
	t.Parallel()
	maxN := min(maxLinearLabels, maxLabels(DefaultWidth))
	for _, r := range [][2]float64{
		{75, 275}, {0, 250}, {0, 11}, {107.9, 3826.8}, {0, 2530}, {0.0123, 0.456},
		{-3, 7}, {0.5, 19.9}, {1e6, 1.3e6}, {610, 690}, {0, 1}, {12, 13},
	} {
		lo, hi := widenRound(r[0], r[1], maxN)
		if lo > r[0] || hi < r[1] {
			t.Errorf("%v: widened to %g–%g, which does not hold it", r, lo, hi)
		}
		var vals []float64
		for _, tk := range (roundTicks{maxN: maxN}).Ticks(lo, hi) {
			if tk.Label == "" {
				continue
			}
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9*max(1, math.Abs(v)) {
				t.Fatalf("%v: label %q at %v", r, tk.Label, tk.Value)
			}
			if strings.Contains(tk.Label, ".") && strings.HasSuffix(tk.Label, "0") {
				t.Errorf("%v: label %q has a useless decimal", r, tk.Label)
			}
			vals = append(vals, v)
		}
		if len(vals) < minLinearLabels || len(vals) > maxN {
			t.Errorf("%v: %d labels %v, want %d to %d", r, len(vals), vals, minLinearLabels, maxN)
			continue
		}
		step := vals[1] - vals[0]
		m := step / math.Pow10(int(math.Floor(math.Log10(step)+1e-9)))
		if !slices.ContainsFunc([]float64{1, 2, 5}, func(x float64) bool { return math.Abs(x-m) < 1e-6 }) {
			t.Errorf("%v: step %g is not 1, 2 or 5 × 10ᵏ (labels %v)", r, step, vals)
		}
		for i, v := range vals {
			if k := v / step; math.Abs(k-math.Round(k)) > 1e-6 || i > 0 && math.Abs(v-vals[i-1]-step) > 1e-9*step*10 {
				t.Errorf("%v: label %g is not a multiple of the step %g", r, v, step)
			}
		}
		if math.Abs(vals[0]-lo) > 1e-9*step || math.Abs(vals[len(vals)-1]-hi) > 1e-9*step {
			t.Errorf("%v: axis %g–%g does not start and end at a label (%v)", r, lo, hi, vals)
		}
	}
}
