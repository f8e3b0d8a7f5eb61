package report

import (
	"bytes"
	"errors"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/internal/testkit/recordstest"
)

func testTail(t *testing.T) (*tail.Result, *Tail) {
	t.Helper()
	var reqs []tail.Request
	for _, r := range recordstest.SlowInstance(4000) {
		if q, ok := tail.FromRecord(&r); ok {
			reqs = append(reqs, q)
		}
	}
	res, err := tail.Analyze(reqs, tail.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	fig, err := figures.TailStages(res)
	if err != nil {
		t.Fatal(err)
	}
	return res, TailOf(res, Figure{File: figures.TailStagesFile, Caption: "stages of the tail", Fig: fig})
}

// TestTailSection: the section has the findings (each once), a row per
// stage and the TTFT with the share and the two groups' means, the
// attributes that set the tail apart, the figure inline and as a PNG.
func TestTailSection(t *testing.T) {
	t.Parallel()
	res, section := testTail(t)
	r := testReport(t)
	r.Tail = section
	dir := t.TempDir()
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(b))
	sec := page[strings.Index(page, `<section id="ttft-tail">`):]
	sec = sec[:strings.Index(sec, "</section>")]
	wants := []string{"<h2>Where the TTFT tail comes from</h2>", res.Heading(), `<a href="#ttft-tail">`,
		"<tr><td>wait</td><td class=\"num\">" + shareText(res.Stages[tail.Wait].Share),
		"<tr><td><strong>TTFT</strong></td><td class=\"num\">100.0%</td>",
		"<tr><td>instance_id</td><td class=\"num\">+1.00", "3: 100% vs 24%",
		"TTFT between p45 and p55 (" + strconv.Itoa(res.Profile.Median.Requests) + ")",
		`<svg role="img" aria-label="stages of the tail"`, `<a href="llm_ttft-stages.png">PNG</a>`}
	for _, s := range res.Findings {
		if n := strings.Count(page, s); n != 1 {
			t.Errorf("finding %q appears %d times, want once", s, n)
		}
		wants = append(wants, s)
	}
	for _, w := range wants {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if n := strings.Count(sec, "<tr><td>"); n != tail.NumStages+1+len(res.Apart()) {
		t.Errorf("%d table rows in the section, want %d stages, the TTFT and %d attributes", n, tail.NumStages, len(res.Apart()))
	}
	png1, err := os.ReadFile(filepath.Join(dir, figures.TailStagesFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(png1)); err != nil {
		t.Errorf("%s: %v", figures.TailStagesFile, err)
	}
	if r.FigureCount() != 3 {
		t.Errorf("%d figures, want the 2 of the metrics and the stages'", r.FigureCount())
	}
}

// TestTailSectionNotAttributed: an attribution that could not run is one
// line; no Tail is no section.
func TestTailSectionNotAttributed(t *testing.T) {
	t.Parallel()
	r := testReport(t)
	r.Tail = TailNotAttributed(errors.New("r.jsonl: 50 requests with a TTFT: the tail above p(99) needs at least 200"))
	var buf bytes.Buffer
	if err := Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	sec := page[strings.Index(page, `<section id="ttft-tail">`):]
	sec = sec[:strings.Index(sec, "</section>")]
	want := "<p>Not attributed: r.jsonl: 50 requests with a TTFT: the tail above p(99) needs at least 200.</p>"
	if !strings.Contains(sec, want) || strings.Contains(sec, "<table>") || strings.Contains(sec, "<svg") || r.FigureCount() != 2 {
		t.Errorf("section %q: want only %q", sec, want)
	}
	r.Tail = nil
	buf.Reset()
	if err := Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "ttft-tail") || strings.Contains(buf.String(), "Where the TTFT tail comes from") {
		t.Error("a report without a Tail has the tail's section")
	}
}
