package main

import (
	"bytes"
	"fmt"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/recordstest"
)

func TestReportCommand(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "report")
	code, stdout, stderr := run(t, nil, "report", fixV2, "--by", "model", "--log", "--band", "--window", "5s", "-o", dir,
		"--check", "llm_ttft: p(99)<5000", "--check", "llm_requests_failed: rate<0.01")
	if code != exitCheckFailed {
		t.Fatalf("exit %d, want %d (a failing check): %s", code, exitCheckFailed, stderr)
	}
	if !strings.Contains(stdout, "wrote "+filepath.Join(dir, "index.html")+" (8 figures") || !strings.Contains(stderr, "1 of 2 checks failed") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"<title>Load test report: " + fixV2 + "</title>",
		`<span class="badge fail">1 of 2 failed</span>`,
		"llm_requests_failed: rate&lt;0.01",
		`<section id="metric-llm_ttft">`, `<section id="metric-llm_requests_failed">`,
		"llm_ttft (model=model-a): long tail — P99 is",
		"P50 and P99 of llm_ttft per 5s window over the run",
		"(shaded: 95% DKW confidence band)",
		"http_429: ", // the failed requests' error kinds
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg "); n != 8 {
		t.Errorf("%d inline SVGs, want 8 (ECDF and drift of 4 Trends)", n)
	}
	for _, m := range []string{"llm_ttft", "llm_tpot", "llm_itl", "llm_e2e"} {
		for _, kind := range []string{"ecdf", "drift"} {
			if _, err := os.Stat(filepath.Join(dir, m+"-"+kind+".png")); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestReportCommandDamagedInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := run(t, nil, "report", fixKilled, "--metric", "llm_ttft", "-o", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "read up to the damage") {
		t.Error("the report does not say the input was cut short")
	}
}

func TestReportCommandSynthetic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "run.json")
	// The service slows down over the run: later windows are worse.
	gen := lognormalGen(4, 6, 0.3, 1)
	writeK6JSON(t, in, 6000, func(i int, at time.Duration) float64 { return gen(i, at) * (1 + at.Seconds()/30) })
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, nil, "report", in, "--metric", "llm_ttft", "-o", out, "--title", "nightly")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<title>nightly</title>", "llm_ttft: later windows are worse", "llm_requests_failed"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestReportCommandErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", fixV2}, "-o is required"},
		{[]string{"report", fixV2, "-o", dir, "--check", "llm_ttft p99"}, "--check"},
		{[]string{"report", fixV2, "-o", dir, "--confidence", "2"}, "--confidence 2"},
		{[]string{"report", fixV2, "-o", dir, "--metric", "nope"}, `metric "nope" is not in the inputs`},
	} {
		code, _, stderr := run(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args[1:], code, stderr, exitUsage, tc.want)
		}
	}
}

// TestReportShowsSummaryWarnings: the report renders the summary's result,
// so every note the summary gives a group — too few samples above a
// percentile, an interval open for want of samples or wider than
// --max-ci-width's default — and every alert (a high failure rate) is on the
// page, worded and counted alike. (The summary's warning list says "too few
// samples" once per metric; the page says it under each group's table.)
func TestReportShowsSummaryWarnings(t *testing.T) {
	t.Parallel()
	s := summaryJSON(t, "--by", "model", fixV2)
	var open, wide bool
	for _, w := range s.Warnings {
		open = open || strings.Contains(w, "too few samples for p(99)")
		wide = wide || strings.Contains(w, "confidence intervals wider than 20% of the value")
	}
	if !open || !wide || len(s.Warnings) < 4 {
		t.Fatalf("the fixture should give open and wide interval warnings: %q", s.Warnings)
	}
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "report", fixV2, "--by", "model", "-o", dir); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	var notes []string
	for _, m := range s.Metrics {
		for _, g := range m.Groups {
			for _, n := range g.Notes {
				notes = append(notes, m.Name+" ("+g.Label+"): "+n)
			}
		}
	}
	if len(notes) < 4 {
		t.Fatalf("the fixture should give notes: %q", notes)
	}
	for _, w := range append(notes, s.Alerts...) {
		if !strings.Contains(page, html.EscapeString(w)) {
			t.Errorf("the report lacks the summary's warning %q", w)
		}
	}
}

// TestReportCommandDefaults checks the report's choices without --log and
// --window: a log ECDF axis when the tail is long (and a caption saying so),
// a linear one when --log=false is given; a drift window chosen from a run
// shorter than six default windows.
func TestReportCommandDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "run.json")
	// 3,000 requests 10 ms apart: a 30 s run; σ = 1.2: max/P50 is about 50.
	writeK6JSON(t, in, 3000, lognormalGen(9, 6, 1.2, 1))
	for _, tc := range []struct {
		args    []string
		logAxis bool
		chosen  string // the chosen window's caption, "" for none
	}{
		{nil, true, "per 2s window over the run (chosen from the run's "},
		{[]string{"--log=false"}, false, "per 2s window over the run (chosen"},
		{[]string{"--window", "10s"}, true, ""},
	} {
		out := filepath.Join(dir, strings.Join(tc.args, ""))
		code, _, stderr := run(t, nil, append([]string{"report", in, "--metric", "llm_ttft", "-o", out + "x"}, tc.args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out+"x", "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		page := html.UnescapeString(string(b))
		if got := strings.Contains(page, "log value axis, as the tail is long (max is "); got != tc.logAxis {
			t.Errorf("%v: caption says the axis is log: %v, want %v", tc.args, got, tc.logAxis)
		}
		if got := strings.Contains(page, "chosen from the run's"); got != (tc.chosen != "") || tc.chosen != "" && !strings.Contains(page, tc.chosen) {
			t.Errorf("%v: the drift caption does not say %q", tc.args, tc.chosen)
		}
	}
}

// reportPage runs analyze report on the inputs into a new folder and
// returns the folder and the page.
func reportPage(t *testing.T, inputs ...string) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "report")
	code, stdout, stderr := run(t, nil, append(append([]string{"report"}, inputs...), "-o", dir)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(b))
	if n := strings.Count(page, "<svg "); !strings.Contains(stdout, fmt.Sprintf("(%d figures", n)) {
		t.Errorf("stdout %q, %d inline figures", stdout, n)
	}
	return dir, page
}

const tailHeading = "<h2>Where the TTFT tail comes from</h2>"

// TestReportTailSection: with a records input the report attributes its
// TTFT tail: the findings, the stage table and the stacked-stage figure,
// inline and as a PNG.
func TestReportTailSection(t *testing.T) {
	t.Parallel()
	dir, page := reportPage(t, recordstest.WriteSlowInstance(t, 4000))
	i := strings.Index(page, tailHeading)
	if i < 0 {
		t.Fatal("no tail section")
	}
	sec := page[i : i+strings.Index(page[i:], "</section>")]
	for _, want := range []string{"TTFT above p(99) = ", "(stage wait), concentrated in instance_id 3.",
		"<tr><td>wait</td>", "<tr><td>instance_id</td>", "3: 100% vs 24%",
		">median requests (p45–p55), n=", ">tail requests (> p99), n=40<", `<a href="llm_ttft-stages.png">PNG</a>`} {
		if !strings.Contains(sec, want) {
			t.Errorf("the tail section lacks %q", want)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "llm_ttft-stages.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("llm_ttft-stages.png: %v", err)
	}
}

// TestReportTailSectionAbsentOrNot: k6's JSON alone has no tail section;
// too few records make it one line, and the report is still written.
func TestReportTailSectionAbsentOrNot(t *testing.T) {
	t.Parallel()
	dir, page := reportPage(t, fixV2)
	if strings.Contains(page, tailHeading) || strings.Contains(page, "ttft-tail") {
		t.Error("a report of k6 JSON only has a tail section")
	}
	if _, err := os.Stat(filepath.Join(dir, "llm_ttft-stages.png")); err == nil {
		t.Error("a report of k6 JSON only has the stages figure")
	}
	few := recordstest.WriteSlowInstance(t, 50)
	_, page = reportPage(t, few)
	want := tailHeading + "\n<p>Not attributed: " + few + ": 50 requests with a TTFT: the tail above p(99) needs at least 200.</p>\n</section>"
	if !strings.Contains(page, want) {
		t.Errorf("the report of 50 records lacks %q", want)
	}
}
