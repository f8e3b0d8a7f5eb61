package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/result"
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
