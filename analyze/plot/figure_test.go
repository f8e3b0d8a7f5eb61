package plot

import (
	"bytes"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
)

func TestSavePNGAndSVG(t *testing.T) {
	t.Parallel()
	f, err := ECDF(testSeries(), Metric("llm_ttft"), Size(6*vg.Inch, 4*vg.Inch), DPI(100))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pngPath := filepath.Join(dir, "ecdf.PNG")
	if err := f.Save(pngPath); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", pngPath, err)
	}
	if sz := img.Bounds().Size(); sz.X != 600 || sz.Y != 400 {
		t.Errorf("PNG is %v px, want 600×400 (6×4 in at 100 dpi)", sz)
	}
	svgPath := filepath.Join(dir, "ecdf.svg")
	if err := f.Save(svgPath); err != nil {
		t.Fatal(err)
	}
	s, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(s, []byte("<svg")) || !bytes.Contains(s, []byte("Arial,Helvetica,sans-serif")) {
		t.Errorf("SVG file lacks <svg or the font fallback list")
	}
	if err := f.Save(filepath.Join(dir, "ecdf.pdf")); err == nil || !strings.Contains(err.Error(), `"`+filepath.Join(dir, "ecdf.pdf")+`"`) {
		t.Errorf("saving as .pdf: %v, want an error naming the file", err)
	}
	if err := f.Save(filepath.Join(dir, "no-such-dir", "x.png")); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
}

// BenchmarkPlot10M prints the time to plot 10 million samples: sort them,
// reduce the ECDF, draw and encode a PNG (and, separately, an SVG) of three
// marked percentiles with the DKW band. Run with
//
//	go test ./analyze/plot/ -run '^$' -bench Plot10M -benchtime 3x
func BenchmarkPlot10M(b *testing.B) {
	const n = 10_000_000
	raw := lognormal(42, n, 6, 0.7)
	// lognormal returns sorted data; shuffle it deterministically so the
	// benchmark pays for the sort as a user does.
	r := rand.New(rand.NewPCG(1, 1))
	r.Shuffle(n, func(i, j int) { raw[i], raw[j] = raw[j], raw[i] })
	for _, format := range []Format{PNG, SVG} {
		b.Run(string(format), func(b *testing.B) {
			b.ReportAllocs()
			var sortTime, drawTime time.Duration
			for b.Loop() {
				t0 := time.Now()
				v := slices.Clone(raw)
				slices.Sort(v)
				t1 := time.Now()
				marks := []Mark{{"P50", .5, testPercentile(v, .5)}, {"P90", .9, testPercentile(v, .9)}, {"P99", .99, testPercentile(v, .99)}}
				f, err := ECDF([]Series{{Name: "10M", Sorted: v, Marks: marks}}, Metric("llm_ttft"), Band(0.95))
				if err != nil {
					b.Fatal(err)
				}
				var buf bytes.Buffer
				if err := f.Encode(&buf, format); err != nil {
					b.Fatal(err)
				}
				sortTime += t1.Sub(t0)
				drawTime += time.Since(t1)
			}
			b.ReportMetric(sortTime.Seconds()/float64(b.N), "s-sort/op")
			b.ReportMetric(drawTime.Seconds()/float64(b.N), "s-draw/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/sample")
		})
	}
}
