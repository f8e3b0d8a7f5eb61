package plot

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSplitRuns(t *testing.T) {
	t.Parallel()
	s := time.Second
	steps := []Step{
		{0, 10 * s, 100}, {10 * s, 20 * s, 120},
		{20 * s, 30 * s, math.NaN()},
		{30 * s, 40 * s, 90},
		{50 * s, 60 * s, 95}, // a gap in time before it
	}
	got := splitRuns(steps)
	want := []XYs{
		{{X: 0, Y: 100}, {X: 10, Y: 120}, {X: 20, Y: 120}},
		{{X: 30, Y: 90}, {X: 40, Y: 90}},
		{{X: 50, Y: 95}, {X: 60, Y: 95}},
	}
	if len(got) != len(want) {
		t.Fatalf("splitRuns = %v, want %v", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("run %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestDriftSVG(t *testing.T) {
	t.Parallel()
	var series []DriftSeries
	for g, name := range []string{"model-a", "model-b"} {
		var p50, p99 []Step
		for w := range 6 {
			st := time.Duration(w) * 10 * time.Second
			p50 = append(p50, Step{st, st + 10*time.Second, 200 + 10*float64(w) + 50*float64(g)})
			p99 = append(p99, Step{st, st + 10*time.Second, 800 + 40*float64(w) + 50*float64(g)})
		}
		series = append(series, DriftSeries{Name: name, Percentiles: []DriftPercentile{{"P50", p50}, {"P99", p99}}})
	}
	f, err := Drift(series, Metric("llm_ttft"))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(svg)
	for _, want := range []string{"model-a P50", "model-a P99", "model-b P50", "model-b P99", "llm_ttft — percentiles per time window", "llm_ttft (ms)"} {
		if n := count(texts, want); n != 1 {
			t.Errorf("text %q appears %d times, want once", want, n)
		}
	}
	trX, trY := transforms(f)
	lines := 0
	for _, p := range parseSVGPaths(t, svg) {
		if !strings.Contains(p.style, "stroke-width:1.4") || len(p.pts) <= 2 {
			continue
		}
		lines++
		for j := 1; j < len(p.pts); j++ {
			if p.pts[j][0] != p.pts[j-1][0] && p.pts[j][1] != p.pts[j-1][1] {
				t.Fatalf("drift segment %v–%v is neither horizontal nor vertical", p.pts[j-1], p.pts[j])
			}
		}
		if !closeTo(p.pts[0][0], trX(0), 0.06) || !closeTo(p.pts[len(p.pts)-1][0], trX(60), 0.06) {
			t.Errorf("drift line spans x %v–%v, want %.5g–%.5g (0–60 s)", p.pts[0][0], p.pts[len(p.pts)-1][0], trX(0), trX(60))
		}
	}
	if lines != 4 {
		t.Errorf("%d drift lines, want 4", lines)
	}
	// model-a's P50 starts at 200 ms in the first window.
	found := false
	for _, p := range parseSVGPaths(t, svg) {
		if len(p.pts) > 2 && closeTo(p.pts[0][0], trX(0), 0.06) && closeTo(p.pts[0][1], trY(200), 0.06) {
			found = true
		}
	}
	if !found {
		t.Errorf("no drift line starts at (0 s, 200 ms) = (%.5g, %.5g)", trX(0), trY(200))
	}
	if _, err := Drift([]DriftSeries{{Name: "x", Percentiles: []DriftPercentile{{"P50", []Step{{0, time.Second, math.NaN()}}}}}}); err != ErrNoData {
		t.Errorf("all-empty drift: %v, want ErrNoData", err)
	}
}
