package report

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// figureKinds are the figures the screenshot test renders: an ECDF of
// three groups, the two-panel capacity figure and a history trend.
func figureKinds(t *testing.T) map[string]*plot.Figure {
	t.Helper()
	var series []plot.Series
	for g, mu := range []float64{5.6, 6.0, 6.4} {
		v := quantiles(2000*(g+1), mu, 0.5)
		s := plot.Series{Name: fmt.Sprintf("concurrency=%d", 1<<(2*g)), Sorted: v}
		for _, p := range []float64{50, 90, 99} {
			val, _ := stats.Percentile(v, p)
			s.Marks = append(s.Marks, plot.Mark{Name: fmt.Sprintf("P%g", p), P: p / 100, Value: val})
		}
		series = append(series, s)
	}
	ecdf, err := plot.ECDF(series, plot.Metric("llm_ttft"))
	if err != nil {
		t.Fatal(err)
	}
	tp := []float64{2, 4, 7.9, 10.6}
	curve := func(name string, ys []float64, limit float64) plot.CapacityCurve {
		c := plot.CapacityCurve{Name: name, Limit: limit}
		for i, y := range ys {
			c.Points = append(c.Points, plot.XYs{{X: tp[i], Y: y}}...)
		}
		return c
	}
	capacity, err := plot.LatencyVsThroughput([]plot.CapacityPanel{
		{Name: "TTFT", Curves: []plot.CapacityCurve{curve("TTFT p(50)", []float64{200, 205, 240, 900}, math.NaN()),
			curve("TTFT p(90)", []float64{205, 215, 300, 1800}, math.NaN()), curve("TTFT p(99)", []float64{210, 230, 380, 2600}, 1000)}},
		{Name: "TPOT", Curves: []plot.CapacityCurve{curve("TPOT p(50)", []float64{20, 21, 24, 31}, math.NaN()),
			curve("TPOT p(90)", []float64{22, 24, 28, 40}, math.NaN()), curve("TPOT p(99)", []float64{25, 27, 33, 55}, 50)}},
	}, 7.9)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	var ts []plot.TrendSeries
	for s := range 2 {
		tsr := plot.TrendSeries{Name: fmt.Sprintf("model=m%d", s)}
		for _, p := range []float64{50, 90, 99} {
			l := plot.TrendLine{Name: fmt.Sprintf("P%g", p)}
			for k := range 20 {
				v := (100 + 50*float64(s)) * (1 + p/50) * (1 + 0.01*float64(k))
				l.Points = append(l.Points, plot.TrendPoint{Time: day.AddDate(0, 0, k), Value: v, Lo: 0.95 * v, Hi: 1.05 * v, Alert: k == 19 && p == 50})
			}
			tsr.Lines = append(tsr.Lines, l)
		}
		ts = append(ts, tsr)
	}
	trend, err := plot.Trend(ts, []plot.TrendMark{{Time: day.AddDate(0, 0, 9), Label: "v1.5.0"}}, plot.Metric("llm_ttft"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*plot.Figure{"ecdf-three-groups": ecdf, "capacity": capacity, "history-trend": trend}
}

// pixelsPerPoint is Chromium's CSS pixels per SVG point.
const pixelsPerPoint = 96.0 / 72

// TestFiguresInChromium renders each figure kind, inline as the report
// embeds it, to a PNG in headless Chromium and checks the screenshot: the
// size asked for, not blank, the curves' colours present, and ink both in
// the plot area and in the legend's column at the right (the legend is
// drawn beside the plot, not on it). Set REPORT_SCREENSHOT_DIR to keep the
// PNGs.
func TestFiguresInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	for name, f := range figureKinds(t) {
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		w, h := int(math.Ceil(f.Width.Points()*pixelsPerPoint)), int(math.Ceil(f.Height.Points()*pixelsPerPoint))
		page := fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>html,body{margin:0;background:#fff} svg{display:block;width:%dpx;height:%dpx}</style></head><body>%s</body></html>`, w, h, svg)
		html := filepath.Join(dir, name+".html")
		if err := os.WriteFile(html, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(dir, name+".png")
		if console := headlessSized(t, bin, "file://"+html, shot, w, h); len(console) > 0 {
			t.Errorf("%s logged to the console:\n%s", name, strings.Join(console, "\n"))
		}
		img := decodePNG(t, shot)
		if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Errorf("%s: screenshot %dx%d, want %dx%d", name, b.Dx(), b.Dy(), w, h)
		}
		if ink := inkShare(img, img.Bounds()); ink < 0.02 {
			t.Errorf("%s: %.2f%% of the screenshot is not white: blank?", name, 100*ink)
		}
		if !hasColour(img, 0x00, 0x72, 0xB2) || !hasColour(img, 0xD5, 0x5E, 0x00) {
			t.Errorf("%s: the curves' colours are missing", name)
		}
		// The rightmost eighth holds the legend (or value table) and
		// some ink; the plot area left of it holds the curves.
		b := img.Bounds()
		right := image.Rect(b.Max.X-b.Dx()/8, b.Min.Y, b.Max.X, b.Max.Y)
		if ink := inkShare(img, right); ink < 0.005 {
			t.Errorf("%s: nothing drawn in the legend's column (%.3f%% ink)", name, 100*ink)
		}
		if keep := os.Getenv("REPORT_SCREENSHOT_DIR"); keep != "" {
			copyFile(t, shot, filepath.Join(keep, name+".png"))
		}
	}
	// And the whole report, with its figures, as TestReportInChromium
	// checks it: kept beside the figures when asked.
	r := testReport(t)
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	if console := headless(t, bin, "file://"+filepath.Join(dir, IndexFile), shot); len(console) > 0 {
		t.Errorf("the report logged to the console:\n%s", strings.Join(console, "\n"))
	}
	img := decodePNG(t, shot)
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2600 {
		t.Errorf("report screenshot %dx%d, want 1280x2600", b.Dx(), b.Dy())
	}
	if ink := inkShare(img, img.Bounds()); ink < 0.02 {
		t.Errorf("report: %.2f%% of the screenshot is not white: blank?", 100*ink)
	}
	if keep := os.Getenv("REPORT_SCREENSHOT_DIR"); keep != "" {
		copyFile(t, shot, filepath.Join(keep, "report.png"))
	}
}

// headlessSized is headless with a window of w×h pixels.
func headlessSized(t *testing.T, bin, url, shot string, w, h int) []string {
	t.Helper()
	return headlessArgs(t, bin, url, shot, fmt.Sprintf("--window-size=%d,%d", w, h))
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	return img
}

// inkShare is the share of the pixels of r that are not near white.
func inkShare(img image.Image, r image.Rectangle) float64 {
	ink, all := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			all++
			if cr>>8 < 235 || cg>>8 < 235 || cb>>8 < 235 {
				ink++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(ink) / float64(all)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Error(err)
	}
}
