package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// goldenChecks exercise a pass, a failure, a submetric and a check without data.
var goldenChecks = []string{
	"--check", "llm_ttft: p(99)<2000, p(90)<900",
	"--check", "llm_ttft{model:model-b}: p(95)<1500",
	"--check", "llm_ttft{model:gpt-4o}: p(95)<800",
	"--check", "llm_requests_failed: rate<0.05",
	"--check", "llm_output_tokens: count>1000",
}

func TestCheckGolden(t *testing.T) {
	t.Parallel()
	for _, f := range []struct{ format, file string }{
		{"text", "check.txt"}, {"markdown", "check.md"}, {"json", "check.json"}, {"junit", "check.xml"},
	} {
		t.Run(f.format, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"check", "--format", f.format, "--labels", "v2", fixV2}, goldenChecks...)
			code, out, errs := run(t, nil, args...)
			if code != exitCheckFailed {
				t.Fatalf("exit %d, want 99: %s", code, errs)
			}
			golden(t, f.file, []byte(out))
		})
	}
}

func checkJSON(t *testing.T, wantCode int, args ...string) *result.CheckReport {
	t.Helper()
	code, out, errs := run(t, nil, append([]string{"check", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("check %v: exit %d, want %d: %s", args, code, wantCode, errs)
	}
	var r result.CheckReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestCheckAgreesWithK6Thresholds re-evaluates the thresholds the k6 script set
// and compares the verdicts with k6's own (in its summary export, true means the
// threshold failed).
func TestCheckAgreesWithK6Thresholds(t *testing.T) {
	t.Parallel()
	for _, run := range []string{"k6v2_llm_synthetic", "k6v1_llm_synthetic"} {
		raw, err := os.ReadFile("../testdata/k6/" + run + "_summary.json")
		if err != nil {
			t.Fatal(err)
		}
		var export struct {
			Metrics map[string]struct {
				Thresholds map[string]bool `json:"thresholds"`
			} `json:"metrics"`
		}
		json.Unmarshal(raw, &export)
		var args []string
		want := map[string]bool{} // check source → passed
		for name, m := range export.Metrics {
			for expr, failed := range m.Thresholds {
				src := name + ": " + expr
				args = append(args, "--check", src)
				want[src] = !failed
			}
		}
		rep := checkJSON(t, exitCheckFailed, append(args, "../testdata/k6/"+run+".json.gz")...)
		if len(rep.Checks) != len(want) || len(want) < 5 {
			t.Fatalf("%d checks, want %d", len(rep.Checks), len(want))
		}
		for _, c := range rep.Checks {
			if p, ok := want[c.Check]; !ok || p != c.K6Passed {
				t.Errorf("%s: %s k6_passed=%v, k6 says passed=%v", run, c.Check, c.K6Passed, p)
			}
			// The verdict with confidence is never kinder than k6's.
			if !c.K6Passed && (c.Verdict != result.Fail || c.Passed) {
				t.Errorf("%s: %s fails in k6 but its verdict is %s", run, c.Check, c.Verdict)
			}
		}
		// --k6-thresholds finds the thresholds on the metrics themselves (not the
		// submetric's, which k6 does not write to its JSON output).
		fromInput := checkJSON(t, exitCheckFailed, "--k6-thresholds", "../testdata/k6/"+run+".json.gz")
		if len(fromInput.Checks) != len(want)-1 {
			t.Errorf("--k6-thresholds: %d checks", len(fromInput.Checks))
		}
		for _, c := range fromInput.Checks {
			if p, ok := want[c.Check]; !ok || p != c.K6Passed {
				t.Errorf("--k6-thresholds %s: %s k6_passed=%v, k6 %v", run, c.Check, c.K6Passed, p)
			}
		}
	}
}

func TestCheckExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := filepath.Join(dir, "gates.txt")
	os.WriteFile(lines, []byte("# CI gates\nllm_ttft: p(99)<2000\nllm_requests_failed: rate<0.05\n"), 0o600)
	js := filepath.Join(dir, "thresholds.json")
	os.WriteFile(js, []byte(`{"llm_ttft": ["p(99)<2000", {"threshold": "avg<700", "abortOnFail": true}]}`), 0o600)
	badFile := filepath.Join(dir, "bad.txt")
	os.WriteFile(badFile, []byte("llm_ttft: p(99)<2000\nllm_ttft p(99)\n"), 0o600)
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		// p(99) of 617 samples is 1788 ms, but its 95% interval reaches 2646:
		// inconclusive, which fails unless accepted.
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)<2000"}, exitCheckFailed, ""},
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)<2000", "--format", "json"}, exitCheckFailed, "1 inconclusive"},
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)<2000", "--allow-inconclusive"}, exitOK, "1 inconclusive check(s) accepted"},
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)<3000"}, exitOK, ""},
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)<2000", "--confidence", "0.5"}, exitOK, ""},
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)<2000", "--confidence", "1"}, exitUsage, "--confidence"},
		{[]string{"check", fixV2, "--checks", lines, "--allow-inconclusive"}, exitOK, ""},
		{[]string{"check", fixV2, "--checks", js, "--allow-inconclusive"}, exitOK, ""},
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)<1000"}, exitCheckFailed, ""},
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)<1000", "--format", "junit"}, exitCheckFailed, "1 of 1 checks failed"},
		{[]string{"check", fixV2, "--check", "nope: avg<1"}, exitCheckFailed, ""},
		{[]string{"check", fixKilled, "--check", "llm_ttft: p(99)<5000"}, exitOK, "data cut short"},
		{[]string{"check", fixV2, "--check", "llm_ttft: p(99)"}, exitUsage, "--check"},
		{[]string{"check", fixV2, "--check", "llm_ttft: rate<1"}, exitUsage, "rate does not apply to llm_ttft, a trend (it takes avg, min, max, med, p(N))"},
		{[]string{"check", fixV2, "--checks", badFile}, exitUsage, "bad.txt:2:"},
		{[]string{"check", fixV2, "--checks", filepath.Join(dir, "missing")}, exitUsage, "missing"},
		{[]string{"check", fixV2}, exitUsage, "no checks"},
		{[]string{"check", "--check", "llm_ttft: avg<1"}, exitUsage, "no input"},
		{[]string{"check", fixV2, "--by", "model", "--check", "llm_ttft: avg<1"}, exitUsage, "do not apply"},
	} {
		code, _, errs := run(t, nil, c.args...)
		if code != c.code || !strings.Contains(errs, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.stderr)
		}
	}
}

func TestCheckNoDataReasons(t *testing.T) {
	t.Parallel()
	rep := checkJSON(t, exitCheckFailed, fixV2, "--where", "scenario=nope",
		"--check", "llm_ttft: p(99)<2000", "--check", "nope: avg<1", "--check", "llm_ttft{model:x}: avg<1")
	want := []string{
		"no data: no samples of llm_ttft match --where",
		"no data: the inputs have no metric nope",
		"no data: no samples of llm_ttft match the tags {model:x} and --where",
	}
	for i, c := range rep.Checks {
		if c.Passed || c.Observed != nil || c.Reason != want[i] {
			t.Errorf("%s: %+v, want reason %q", c.Check, c, want[i])
		}
	}
}

func TestCheckWindowAndWhere(t *testing.T) {
	t.Parallel()
	all := checkJSON(t, exitOK, fixV2, "--check", "llm_itl: p(50)>0")
	early := checkJSON(t, exitOK, fixV2, "--to", "5s", "--check", "llm_itl: p(50)>0")
	late := checkJSON(t, exitOK, fixV2, "--from", "5s", "--check", "llm_itl: p(50)>0")
	if early.Checks[0].Count+late.Checks[0].Count != all.Checks[0].Count || early.Checks[0].Count == 0 {
		t.Errorf("window: %d + %d != %d", early.Checks[0].Count, late.Checks[0].Count, all.Checks[0].Count)
	}
	// A submetric and --where on the same tag agree.
	a := checkJSON(t, exitOK, fixV2, "--check", "llm_ttft{model:model-b}: p(95)<1500", "--allow-inconclusive")
	b := checkJSON(t, exitOK, fixV2, "--where", "model=model-b", "--check", "llm_ttft: p(95)<1500", "--allow-inconclusive")
	if a.Checks[0].Count != 292 || *a.Checks[0].Observed != *b.Checks[0].Observed {
		t.Errorf("submetric %+v vs where %+v", a.Checks[0], b.Checks[0])
	}
}

func TestCheckJUnitIsValidXML(t *testing.T) {
	t.Parallel()
	args := append([]string{"check", "--format", "junit", fixV2}, goldenChecks...)
	_, out, _ := run(t, nil, args...)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 6 || doc.Failures != 4 || len(doc.Suite.Cases) != 6 { // 2 failed, 2 inconclusive
		t.Fatalf("%+v", doc)
	}
	f := doc.Suite.Cases[1].Failure
	if doc.Suite.Cases[1].Name != "llm_ttft: p(90)<900" || f == nil ||
		!strings.Contains(f.Message, "p(90) = 1078.37 ms") || !strings.Contains(f.Text, "limit:    p(90) < 900") {
		t.Errorf("failure %+v", doc.Suite.Cases[1])
	}
}

// TestCheckK6ThresholdsFromAnyInput: --k6-thresholds checks every threshold
// any input declares, whatever the order of the inputs and of the lines, on
// all the samples of every input; a threshold declared twice is checked once.
// Before, a metric's thresholds were read at its first point: those declared
// later (a later input, a later line) were missed, or checked on no samples.
func TestCheckK6ThresholdsFromAnyInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pt := func(sec int, v float64) string {
		return fmt.Sprintf(`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:%02dZ","value":%v,"tags":{}}}`, sec, v)
	}
	decl := func(thresholds string) string {
		return `{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time","thresholds":` + thresholds + `,"submetrics":null},"metric":"llm_ttft"}`
	}
	write := func(name string, lines ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Five samples without a declaration (a filtered output), one declaring
	// p(99)<100 with a sample of 200, the same again, one declaring no
	// threshold, one declaring avg<1000, and one whose declaration comes after
	// its first sample.
	points := write("points.json", pt(0, 50), pt(1, 60), pt(2, 70), pt(3, 80), pt(4, 90))
	p99 := write("p99.json", decl(`["p(99)<100"]`), pt(10, 200))
	p99again := write("p99-again.json", decl(`["p(99)<100"]`), pt(20, 200))
	none := write("none.json", decl(`[]`), pt(30, 10))
	avg := write("avg.json", decl(`[{"threshold":"avg<1000","abortOnFail":true}]`), pt(40, 300))
	late := write("late.json", pt(50, 50), pt(51, 60), decl(`["p(99)<100"]`), pt(52, 200))

	type want struct {
		check    string
		count    int64
		observed float64
	}
	for _, c := range []struct {
		name   string
		inputs []string
		want   []want
	}{
		// p(99) of 50, 60, 70, 80, 90, 200 is 90 + 0.95·110.
		{"declared in a later input", []string{points, p99}, []want{{"llm_ttft: p(99)<100", 6, 194.5}}},
		{"declared in the first input", []string{p99, points}, []want{{"llm_ttft: p(99)<100", 6, 194.5}}},
		{"declared without thresholds first", []string{none, p99}, []want{{"llm_ttft: p(99)<100", 2, 200 - 0.01*190}}},
		{"declared twice alike", []string{p99, points, p99again}, []want{{"llm_ttft: p(99)<100", 7, 200}}},
		{"declared alike, undeclared first", []string{points, p99, p99again}, []want{{"llm_ttft: p(99)<100", 7, 200}}},
		{"two inputs, two thresholds", []string{points, p99, avg}, []want{
			{"llm_ttft: p(99)<100", 7, 200 + 0.94*100}, {"llm_ttft: avg<1000", 7, 850.0 / 7}}},
		{"two thresholds, the other order", []string{avg, points, p99}, []want{
			{"llm_ttft: avg<1000", 7, 850.0 / 7}, {"llm_ttft: p(99)<100", 7, 200 + 0.94*100}}},
		{"declared after the first sample", []string{late}, []want{{"llm_ttft: p(99)<100", 3, 60 + 0.98*140}}},
	} {
		code, out, errs := run(t, nil, append([]string{"check", "--format", "json", "--k6-thresholds"}, c.inputs...)...)
		var rep result.CheckReport
		if err := json.Unmarshal([]byte(out), &rep); code != exitCheckFailed || err != nil {
			t.Errorf("%s: exit %d (want 99), %v: %s", c.name, code, err, errs)
			continue
		}
		if len(rep.Checks) != len(c.want) {
			t.Errorf("%s: %d checks %+v, want %+v", c.name, len(rep.Checks), rep.Checks, c.want)
			continue
		}
		for i, w := range c.want {
			got := rep.Checks[i]
			if got.Check != w.check || got.Count != w.count || got.Observed == nil || math.Abs(*got.Observed-w.observed) > 1e-9 {
				obs := "null"
				if got.Observed != nil {
					obs = fmt.Sprint(*got.Observed)
				}
				t.Errorf("%s: check %d is %q on %d samples = %s, want %q on %d = %v", c.name, i, got.Check, got.Count, obs, w.check, w.count, w.observed)
			}
		}
	}
	// A --check on a submetric of the metric does not hide its thresholds'
	// samples: each sees its own.
	code, out, errs := run(t, nil, "check", "--format", "json", "--k6-thresholds", "--check", "llm_ttft{model:x}: avg<1", points, p99)
	var rep result.CheckReport
	if err := json.Unmarshal([]byte(out), &rep); code != exitCheckFailed || err != nil || len(rep.Checks) != 2 {
		t.Fatalf("with a submetric: exit %d, %v, %+v: %s", code, err, rep.Checks, errs)
	}
	if sub, th := rep.Checks[0], rep.Checks[1]; sub.Count != 0 || th.Check != "llm_ttft: p(99)<100" || th.Count != 6 {
		t.Errorf("with a submetric: %q on %d samples and %q on %d, want 0 and 6", sub.Check, sub.Count, th.Check, th.Count)
	}
	// Inputs that declare no threshold anywhere are still bad usage.
	if code, _, errs := run(t, nil, "check", "--k6-thresholds", points, none); code != exitUsage || !strings.Contains(errs, "declare no thresholds") {
		t.Errorf("no thresholds: exit %d, stderr %q", code, errs)
	}
}

// TestCheckK6ThresholdsCounterRateSpan: keeping every metric's samples for
// --k6-thresholds does not stretch the time a Counter's rate is taken over:
// a threshold judges as the same --check does (to the latest sample of the
// metrics checked, not of a metric only kept in case it declared thresholds).
func TestCheckK6ThresholdsCounterRateSpan(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run.json")
	os.WriteFile(path, []byte(strings.Join([]string{
		`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:00Z","value":100,"tags":{}}}`,
		`{"type":"Metric","data":{"name":"llm_output_tokens","type":"counter","contains":"default","thresholds":["rate<15"]},"metric":"llm_output_tokens"}`,
		`{"metric":"llm_output_tokens","type":"Point","data":{"time":"2026-01-01T00:00:01Z","value":10,"tags":{}}}`,
		`{"metric":"llm_output_tokens","type":"Point","data":{"time":"2026-01-01T00:00:02Z","value":10,"tags":{}}}`,
		`{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:09Z","value":100,"tags":{}}}`,
	}, "\n")+"\n"), 0o600)
	byCheck := checkJSON(t, exitOK, path, "--check", "llm_output_tokens: rate<15")
	byThreshold := checkJSON(t, exitOK, path, "--k6-thresholds")
	if len(byThreshold.Checks) != 1 || len(byCheck.Checks) != 1 {
		t.Fatalf("checks %+v and %+v", byCheck.Checks, byThreshold.Checks)
	}
	// 20 tokens over the 2 s from the first sample to the last token sample.
	c, th := byCheck.Checks[0], byThreshold.Checks[0]
	if c.Observed == nil || th.Observed == nil {
		t.Fatalf("no rate: --check %+v, --k6-thresholds %+v", c, th)
	}
	if *c.Observed != 10 || *th.Observed != 10 || th.Count != 2 || c.Count != 2 {
		t.Errorf("rate %v/s (--check), %v/s (--k6-thresholds) on %d and %d samples: want both 10/s on 2", *c.Observed, *th.Observed, c.Count, th.Count)
	}
}

// TestCheckTypoIsAUsageError: a check on a metric a few edits from one the
// inputs have (llm_ttfy) is a usage error (exit 2) saying which it likely
// meant, as plot --metric says; a name close to none stays a failed check.
func TestCheckTypoIsAUsageError(t *testing.T) {
	t.Parallel()
	code, _, stderr := run(t, nil, "check", fixV2, "--check", "llm_ttfy: p(99)<2000")
	if code != 2 || !strings.Contains(stderr, "did you mean llm_ttft?") {
		t.Errorf("check llm_ttfy: exit %d, %q; want 2 and did you mean llm_ttft", code, stderr)
	}
	code, _, stderr = run(t, nil, "plot", fixV2, "--metric", "llm_ttfy", "-o", t.TempDir()+"/x.png")
	if code != 2 || !strings.Contains(stderr, "did you mean llm_ttft?") {
		t.Errorf("plot llm_ttfy: exit %d, %q", code, stderr)
	}
	if code, _, stderr = run(t, nil, "check", fixV2, "--check", "zzz_custom_counter: count>0"); code != 99 {
		t.Errorf("check on an absent custom metric: exit %d, %q; want 99 (no data)", code, stderr)
	}
}
