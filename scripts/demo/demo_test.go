// Package demo holds the test of the README's main job, in a test binary of
// its own: it runs for the demo's full 40 s, and go test's 10-minute bound is
// per binary, so with -count=3 on a busy machine it must not share one with
// the other script tests.
package demo

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// TestDemoDecides runs the README's main job as a user does — `xk6-llmstream
// run --records records.jsonl.gz scripts/ramping-vus.js --out json=…` with
// real k6 against the built-in mock's default profile, at full length (about
// 40 s) — and asserts that it makes enough requests for every gate the README
// shows to decide: llm_ttft p(99) at 95% confidence needs
// stats.ClosedIntervalN(0.99, 0.95) = 368 samples, and `analyze tail` needs
// 200 records with a TTFT. It then runs analyze itself on the outputs: check
// must not be inconclusive and tail must accept the records. Counts, not time.
//
// On a machine other processes keep busy, k6 (under SCHED_IDLE, as run
// starts it) gets little CPU and the demo makes fewer requests; the run must
// then say so (the load-generator warning), and check must fail closed
// rather than pass on too few samples.
func TestDemoDecides(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the demo runs for its full 40 s")
	}
	k6, ferr := runner.FindK6(os.Environ())
	if ferr != nil {
		t.Skipf("no k6 (%v): set K6_BIN=/path/to/k6 or put k6 on PATH to run the README's main job", ferr)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "results.json")
	recs := filepath.Join(dir, "records.jsonl.gz")
	env := os.Environ()
	env = append(env, "K6_BIN="+k6, "K6_NO_USAGE_REPORT=true", "LLM_BASE_URL=", "LLM_MAX_VUS=", "LLM_TIME_SCALE=", "LLM_MAX_TOKENS=")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, err := runner.Run(ctx, runner.Config{
		Args:    []string{"../ramping-vus.js", "--out", "json=" + out},
		Env:     env,
		Stdout:  &stdout,
		Stderr:  &stderr,
		Records: recs,
		K6Nice:  runner.DefaultK6Nice,
		K6Idle:  true,
	})
	if err != nil || code != 0 {
		t.Fatalf("run: code %d, err %v\n%s", code, err, tail(stderr.String(), 3000))
	}

	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ttft := 0
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var p struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
		}
		if json.Unmarshal(line, &p) == nil && p.Type == "Point" && p.Metric == "llm_ttft" {
			ttft++
		}
	}
	need := stats.ClosedIntervalN(0.99, 0.95)
	t.Logf("the demo made %d requests with a TTFT (p(99) at 95%% needs %d)", ttft, need)
	analyze := buildAnalyze(t, dir)
	chk := exec.Command(analyze, "check", out, "--check", "llm_ttft: p(99)<2000")
	b, err := chk.CombinedOutput()
	if ttft < need {
		if !strings.Contains(stderr.String(), runner.LimitedWarning) {
			t.Fatalf("the demo made %d llm_ttft samples (p(99) at 95%% confidence needs %d) and the run did not say the load generator limited it:\n%s", ttft, need, tail(stderr.String(), 3000))
		}
		// Too few samples on a busy machine, and said so: the gate must fail
		// closed, not pass.
		if err == nil || !strings.Contains(strings.ToLower(string(b)), "inconclusive") {
			t.Errorf("analyze check on %d samples: %v, want it inconclusive (fail closed)\n%s", ttft, err, b)
		}
		t.Logf("a busy machine: the run warned it was limited by the load generator, and the gate failed closed")
		return
	}
	if n := countRecords(t, recs); n < 200 {
		t.Errorf("the demo wrote %d records: analyze tail needs 200", n)
	}
	if err != nil || strings.Contains(strings.ToLower(string(b)), "inconclusive") {
		t.Errorf("analyze check on the demo's output: %v\n%s", err, b)
	}
	tl := exec.Command(analyze, "tail", recs)
	if b, err := tl.CombinedOutput(); err != nil {
		t.Errorf("analyze tail on the demo's records: %v\n%s", err, b)
	}
}

// countRecords counts the request records (lines with a "ttft_ns") of a
// gzipped records file.
func countRecords(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"ttft_ns"`)) {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// buildAnalyze builds the analyze command into dir.
func buildAnalyze(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "analyze")
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building analyze needs the go command on PATH: %v", err)
	}
	cmd := exec.Command(gobin, "build", "-o", bin, "../../analyze")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ../../analyze: %v\n%s", err, b)
	}
	return bin
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
