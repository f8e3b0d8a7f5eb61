package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"html/template"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// quantiles returns n exact lognormal quantiles: deterministic "samples".
func quantiles(n int, mu, sigma float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Exp(mu + sigma*distuv.UnitNormal.Quantile((float64(i)+0.5)/float64(n)))
	}
	return v
}

func group(label string, v []float64) Group {
	g := Group{Label: label, Count: len(v), Min: v[0], Max: v[len(v)-1]}
	var sum float64
	for _, x := range v {
		sum += x
	}
	g.Mean = sum / float64(len(v))
	for _, p := range []float64{50, 90, 99, 99.9} {
		val, _ := stats.Percentile(v, p)
		iv := stats.QuantileInterval(v, p/100, 0.95)
		g.Percentiles = append(g.Percentiles, Percentile{Name: stats.Name(p), Value: val, Lo: iv.Lo, Hi: iv.Hi, TooFew: len(v) < stats.MinSamples(p, 2)})
	}
	return g
}

func testReport(t *testing.T) *Report {
	t.Helper()
	a, b := quantiles(3000, 6, 0.5), quantiles(1500, 6.3, 0.7)
	marks := func(v []float64) []plot.Mark {
		var ms []plot.Mark
		for _, p := range []float64{50, 90, 99} {
			val, _ := stats.Percentile(v, p)
			ms = append(ms, plot.Mark{Name: fmt.Sprintf("P%g", p), P: p / 100, Value: val})
		}
		return ms
	}
	ecdf, err := plot.ECDF([]plot.Series{{Name: "model=a", Sorted: a, Marks: marks(a)}, {Name: "model=b", Sorted: b, Marks: marks(b)}}, plot.Metric("llm_ttft"))
	if err != nil {
		t.Fatal(err)
	}
	var steps []plot.Step
	for w := range 6 {
		st := time.Duration(w) * 10 * time.Second
		steps = append(steps, plot.Step{Start: st, End: st + 10*time.Second, Value: 400 + 10*float64(w)})
	}
	drift, err := plot.Drift([]plot.DriftSeries{{Name: "model=a", Percentiles: []plot.DriftPercentile{{Name: "P50", Steps: steps}}}}, plot.Metric("llm_ttft"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	return &Report{
		Title:      "llm_ttft under load <model a & b>",
		Generated:  start.Add(time.Hour),
		Command:    "analyze report --by model results.json -o out",
		Selection:  "by model",
		Confidence: 0.95,
		Inputs: []Input{{Label: "results.json", Path: "runs/results.json", First: start, Last: start.Add(61500 * time.Millisecond),
			Points: 31234, Kept: 4500, Notes: []string{"cut short: gzip stream ends early"}}},
		Checks: &Checks{Passed: 1, Failed: 1, Total: 2, Rows: []CheckRow{
			{Check: "llm_ttft: p(99)<2000", Observed: "1234.5 ms", Passed: true},
			{Check: "llm_ttft{model:b}: p(95)<800", Observed: "1000.25 ms", Passed: false},
		}},
		Metrics: []Metric{
			{Name: "llm_ttft", Kind: "trend", Unit: "ms", Groups: []Group{group("model=a", a), group("model=b", b)},
				Diagnosis: []string{"llm_ttft (model=a): no long tail — P99 is 3.2× P50."},
				Drift:     []string{"llm_ttft (model=a): no drift."},
				Figures: []Figure{{File: "llm_ttft-ecdf.png", Caption: "ECDF of llm_ttft by model", Fig: ecdf},
					{File: "llm_ttft-drift.png", Caption: "llm_ttft per 10 s window", Fig: drift}},
				Windows: []WindowRow{{Group: "model=a", Start: 0, End: 10 * time.Second, N: 150, P50: 400, P90: 500, P99: 600, TooFewForP99: true}},
			},
			{Name: "llm_requests_failed", Kind: "rate", Values: []Value{{Label: "all", Text: "2.31% (57 of 2,468) — http_429: 40, timeout: 17"}}},
		},
		Warnings: []string{"results.json: cut short"},
	}
}

// placeholderSVG replaces each inline SVG by a short placeholder, so that the
// golden file holds the page's own markup only.
var svgRE = regexp.MustCompile(`(?s)<svg role="img" aria-label="([^"]*)".*?</svg>`)

func TestWriteReport(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out", "nested")
	r := testReport(t)
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	if n := strings.Count(page, "<svg "); n != 2 {
		t.Errorf("%d inline SVGs, want 2", n)
	}
	for _, want := range []string{
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
		"<title>llm_ttft under load &lt;model a &amp; b&gt;</title>",
		`<section id="metric-llm_ttft">`, `<a href="#metric-llm_requests_failed">`,
		`<span class="badge fail">1 of 2 failed</span>`, "<span class=\"fail\">FAIL</span>",
		"llm_ttft (model=a): no long tail", `<a href="llm_ttft-ecdf.png">PNG</a>`,
		"2026-11-29 14:00:00.000", "1m1.5s", "31,234",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Each diagnosis sentence once, in the Diagnosis section.
	for _, m := range r.Metrics {
		for _, s := range append(append([]string(nil), m.Diagnosis...), m.Drift...) {
			if n := strings.Count(page, template.HTMLEscapeString(s)); n != 1 {
				t.Errorf("sentence %q appears %d times, want once", s, n)
			}
		}
	}
	// Self-contained: no script, no stylesheet or image to fetch, no URL
	// other than the SVG namespace names (identifiers, never fetched).
	if strings.Contains(page, "<script") || strings.Contains(page, "<link") || strings.Contains(page, "url(") || strings.Contains(page, "@import") {
		t.Error("page has a script, a link, url() or @import")
	}
	rest := strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "", `xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(page)
	if i := strings.Index(rest, "://"); i >= 0 {
		t.Errorf("page refers to a URL: %q", rest[max(0, i-40):min(len(rest), i+40)])
	}
	for _, f := range []string{"llm_ttft-ecdf.png", "llm_ttft-drift.png"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}

	golden := filepath.Join("testdata", "report.golden.html")
	got := svgRE.ReplaceAllString(page, `<svg aria-label="$1">…</svg>`)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("page differs from %s (run go test -update and review the diff)", golden)
	}
}

func TestWriteReportErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*Report)
		want string
	}{
		{"path in file name", func(r *Report) { r.Metrics[0].Figures[0].File = "../x.png" }, `"../x.png"`},
		{"not png", func(r *Report) { r.Metrics[0].Figures[0].File = "x.svg" }, "ending in .png"},
		{"twice", func(r *Report) { r.Metrics[0].Figures[1].File = r.Metrics[0].Figures[0].File }, "two figures are named"},
		{"nothing drawn", func(r *Report) { r.Metrics[0].Figures[0].Fig = nil }, "nothing drawn"},
	} {
		r := testReport(t)
		tc.edit(r)
		if err := Write(t.TempDir(), r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	// A file where the folder should be.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(file, testReport(t)); err == nil {
		t.Error("writing into a path that is a file succeeded")
	}
}

// chromium returns the path of a Chromium binary, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (set CHROMIUM, or apt-get install -y chromium): the report's browser check is skipped")
	return ""
}

// headless opens url in headless Chromium, takes a screenshot and returns the
// console messages the page produced (Chromium logs them to stderr as
// "INFO:CONSOLE").
func headless(t *testing.T, bin, url, shot string) []string {
	t.Helper()
	return headlessArgs(t, bin, url, shot, "--window-size=1280,2600")
}

// headlessArgs is headless with a window size of its own.
func headlessArgs(t *testing.T, bin, url, shot, windowSize string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--hide-scrollbars", windowSize, "--screenshot="+shot, url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	var console []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return console
}

// TestReportInChromium opens the report in headless Chromium: no console
// message (a CSP violation for anything the page tried to load, a script
// error, …) and a screenshot that shows the figures (the tail's section
// included). A control page with a missing image must produce a console
// message, or the check proves nothing.
// Set REPORT_SCREENSHOT to a path to keep the screenshot.
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	r := testReport(t)
	_, r.Tail = testTail(t) // the tail's section and figure too
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "screenshot.png")
	if console := headless(t, bin, "file://"+filepath.Join(dir, IndexFile), shot); len(console) > 0 {
		t.Errorf("the report logged to the console:\n%s", strings.Join(console, "\n"))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	// The ECDF curves are drawn in the palette's blue and vermillion: a
	// rendered page has pixels of both.
	if !hasColour(img, 0x00, 0x72, 0xB2) || !hasColour(img, 0xD5, 0x5E, 0x00) {
		t.Error("the screenshot shows no ECDF curve colours: were the SVGs rendered?")
	}
	if keep := os.Getenv("REPORT_SCREENSHOT"); keep != "" {
		b, _ := os.ReadFile(shot)
		if err := os.WriteFile(keep, b, 0o644); err != nil {
			t.Error(err)
		}
	}

	// Control: a page under the same policy that loads a missing image.
	control := strings.Replace(pageHead(t, dir), "</body>", `<img src="missing.png" alt=""></body>`, 1)
	cpath := filepath.Join(dir, "control.html")
	if err := os.WriteFile(cpath, []byte(control), 0o644); err != nil {
		t.Fatal(err)
	}
	if console := headless(t, bin, "file://"+cpath, filepath.Join(dir, "control.png")); len(console) == 0 {
		t.Error("the control page with a blocked image logged nothing: console messages are not being captured")
	}
}

func pageHead(t *testing.T, dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hasColour(img image.Image, r, g, b uint8) bool {
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(cr, r) && near(cg, g) && near(cb, b) {
				return true
			}
		}
	}
	return false
}

func near(c uint32, want uint8) bool {
	d := int(c>>8) - int(want)
	return d >= -12 && d <= 12
}

var _ = slices.Sort[[]float64]
