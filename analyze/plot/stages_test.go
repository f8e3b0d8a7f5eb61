package plot

import (
	"bytes"
	"html"
	"image/png"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

func testStageBars() []StageBar {
	return []StageBar{
		{Label: "median requests (p45–p55), n=500", Values: []float64{0, 0.2, 21.4, 18.9, 1.06}},
		{Label: "tail requests (> p99), n=50", Values: []float64{0, 0.2, 1130, 21.7, 1.08}},
	}
}

// TestStagesSVG: both bars are labelled, every stage is in the legend, each
// bar's total is written, and each stage's segment starts where the stages
// before it end and is as long as its value; the zero-width connect stage
// draws nothing wrong.
func TestStagesSVG(t *testing.T) {
	t.Parallel()
	stages := tail.StageNames[:]
	bars := testStageBars()
	f, err := Stages(stages, bars, Title("where the TTFT tail comes from"))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(svg)
	for i := range texts {
		texts[i] = html.UnescapeString(texts[i])
	}
	for _, want := range append(slices.Clone(stages), bars[0].Label, bars[1].Label, "41.56 ms", "1153 ms", "where the TTFT tail comes from", "mean time per request (ms)") {
		if !slices.Contains(texts, want) {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
	paths := parseSVGPaths(t, svg)
	trX, _ := transforms(f)
	const tol = 0.06
	for i, b := range bars {
		cum := 0.0
		for s, v := range b.Values {
			if v > 0 && !hasSegment(paths, hexColor(palette[s]), trX(cum), trX(cum+v), tol) {
				t.Errorf("bar %d, stage %s: no segment from x %.5g to %.5g", i, stages[s], trX(cum), trX(cum+v))
			}
			cum += v
		}
	}
}

// hasSegment reports whether a path filled with colour spans x0…x1.
func hasSegment(paths []svgPath, colour string, x0, x1, tol float64) bool {
	for _, p := range paths {
		if !strings.Contains(p.style, "fill:"+colour) || len(p.pts) < 4 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, pt := range p.pts {
			lo, hi = math.Min(lo, pt[0]), math.Max(hi, pt[0])
		}
		if closeTo(lo, x0, tol) && closeTo(hi, x1, tol) {
			return true
		}
	}
	return false
}

// TestStagesEdges: all-zero bars draw, and a PNG too; bad values are errors
// naming the bar and stage.
func TestStagesEdges(t *testing.T) {
	t.Parallel()
	zero := []StageBar{{Label: "a", Values: []float64{0, 0}}, {Label: "b", Values: []float64{0, 0}}}
	f, err := Stages([]string{"x", "y"}, zero)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf, PNG); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&buf); err != nil {
		t.Errorf("not a PNG: %v", err)
	}
	if _, err := Stages([]string{"x"}, nil); err != ErrNoData {
		t.Errorf("no bars: %v, want ErrNoData", err)
	}
	for _, c := range []struct {
		bar  StageBar
		want string
	}{
		{StageBar{Label: "a", Values: []float64{1}}, `bar "a" has 1 values for 2 stages`},
		{StageBar{Label: "a", Values: []float64{1, -1}}, `bar "a", stage y: value -1`},
		{StageBar{Label: "a", Values: []float64{math.NaN(), 1}}, `bar "a", stage x: value NaN`},
	} {
		if _, err := Stages([]string{"x", "y"}, []StageBar{c.bar}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.bar, err, c.want)
		}
	}
}
