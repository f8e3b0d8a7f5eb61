package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/sweep"
)

func TestSweepUsageErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--levels", "2,4"}, "missing the k6 script"},
		{[]string{"s.js"}, "either --levels LIST or --search"},
		{[]string{"--levels", "2,4", "--search", "s.js"}, "either --levels LIST or --search"},
		{[]string{"--levels", "4,2", "s.js"}, "increasing order"},
		{[]string{"--vus", "--levels", "1.5", "s.js"}, "whole number"},
		{[]string{"--rate", "--vus", "--levels", "1", "s.js"}, "exclude each other"},
		{[]string{"--search", "--resolution", "0", "s.js"}, "resolution"},
		{[]string{"--search", "--min", "8", "--max", "4", "s.js"}, "below --min"},
		{[]string{"--levels", "1", "--slo", "llm_ttft p99<1", "s.js"}, "METRIC: EXPRESSION"},
		{[]string{"--levels", "1", "--slo", "llm_requests_failed: p(99)<1", "s.js"}, "does not apply"},
		{[]string{"--levels", "1", "--confidence", "1", "s.js"}, "--confidence"},
		{[]string{"--levels", "1", "--bogus", "s.js"}, "bogus"},
		{[]string{"--levels", "1", "--scrape", "http://vllm.internal:8000/metrics", "s.js"}, "--scrape: refused: host vllm.internal:8000 is not on the allow-list"},
		{[]string{"--levels", "1", "--scrape", "http://127.0.0.1:8000/metrics?k=v", "s.js"}, "--scrape: the URL carries a query"},
		{[]string{"--levels", "1", "--ca-file", "/nonexistent/ca.pem", "s.js"}, "--ca-file"},
		{[]string{"--levels", "1", "--gpu-metrics", "http://dcgm.internal:9400/metrics", "s.js"}, "--gpu-metrics: refused: host dcgm.internal:9400 is not on the allow-list"},
	}
	for _, tc := range cases {
		var stderr bytes.Buffer
		code := realMain(append([]string{"sweep"}, tc.args...), nil, &bytes.Buffer{}, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("sweep %q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), exitUsage, tc.want)
		}
	}
	var stderr bytes.Buffer
	if code := realMain([]string{"sweep", "-h"}, nil, &bytes.Buffer{}, &stderr); code != exitOK || !strings.Contains(stderr.String(), "--level-duration") {
		t.Errorf("sweep -h: exit %d, %q", code, stderr.String())
	}
}

// TestSweepCommand runs the command with a k6 that is a shell script writing
// a fixed k6 JSON output (one request per level, 1 s apart, so every rate is
// 1 req/s): the table, the answer, the JSON file and the exit codes.
func TestSweepCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	for i := range 40 {
		ts := fmt.Sprintf("2026-01-02T03:04:%02dZ", 5+i)
		for _, m := range []struct {
			name string
			v    float64
		}{{"llm_ttft", 50}, {"llm_output_tokens", 10}, {"llm_requests_failed", 0}} {
			lines = append(lines, fmt.Sprintf(`{"metric":%q,"type":"Point","data":{"time":%q,"value":%g,"tags":{},"metadata":{"llm_request_id":"r%d"}}}`, m.name, ts, m.v, i))
		}
	}
	data := filepath.Join(dir, "level.json.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"type":"Metric","data":{"name":"llm_requests_failed","type":"rate","contains":"default"},"metric":"llm_requests_failed"}` + "\n" +
		`{"type":"Metric","data":{"name":"llm_output_tokens","type":"counter","contains":"default"},"metric":"llm_output_tokens"}` + "\n" +
		strings.Join(lines, "\n") + "\n"))
	zw.Close()
	if err := os.WriteFile(data, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// The fake k6 copies the file to --out json=PATH; exits $FAKE_CODE at level 2.
	k6 := filepath.Join(dir, "k6")
	script := `#!/bin/sh
out=""; level=""
while [ $# -gt 0 ]; do case "$1" in --out) out="${2#json=}"; shift;; --tag) level="${2#level=}"; shift;; esac; shift; done
cp "` + data + `" "$out"
sleep ${FAKE_SLEEP:-0}
[ "$level" = 2 ] && exit ${FAKE_CODE:-0}
exit 0
`
	if err := os.WriteFile(k6, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	sleep := "0"
	run := func(code string, args ...string) (int, string, string) {
		env := append(os.Environ(), "K6_BIN="+k6, "LLM_BASE_URL=", "FAKE_CODE="+code, "FAKE_SLEEP="+sleep)
		var stdout, stderr bytes.Buffer
		err := sweepK6(context.Background(), args, &stdout, &stderr, nil, env)
		exit := exitOK
		if err != nil {
			var ce exitCodeError
			if !errors.As(err, &ce) {
				t.Fatalf("sweep %q: %v", args, err)
			}
			exit = ce.code
		}
		return exit, stdout.String(), stderr.String()
	}
	out := filepath.Join(dir, "out")
	js := filepath.Join(dir, "r.json")
	code, stdout, stderr := run("99", "--levels", "1,2", "--slo", "llm_ttft: p(50)<100", "--max-failure-rate", "0.2",
		"--level-duration", "0", "--out-dir", out, "--json", js, "capacity.js")
	if code != exitOK || !strings.Contains(stdout, "highest rate meeting the SLO: 1 req/s") || !strings.Contains(stderr, "level 2 of about 2") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var res struct {
		Version    int      `json:"version"`
		MaxPassing *float64 `json:"max_passing"`
		Levels     []struct {
			Offered     float64 `json:"offered"`
			AchievedRPS float64 `json:"achieved_rps"`
			OutputTPS   float64 `json:"output_tps"`
			GoodputRPS  float64 `json:"goodput_rps"`
			Pass        bool    `json:"pass"`
			K6ExitCode  int     `json:"k6_exit_code"`
		} `json:"levels"`
	}
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Version != sweep.ResultVersion || len(res.Levels) != 2 || res.MaxPassing == nil || *res.MaxPassing != 1 {
		t.Fatalf("result %s", raw)
	}
	// Level 2 offered 2 req/s but achieved 1: saturated; k6's 99 there is data.
	l1, l2 := res.Levels[0], res.Levels[1]
	if !l1.Pass || l1.AchievedRPS != 1 || l1.OutputTPS != 10 || l1.GoodputRPS != 1 || l2.Pass || l2.K6ExitCode != 99 {
		t.Errorf("levels %+v", res.Levels)
	}
	if _, err := os.Stat(filepath.Join(out, "level-2.log")); err != nil {
		t.Error(err)
	}
	// The sweep draws no figures (the k6-side binary links no plotting): it
	// says how analyze draws them from the result.
	if drawn, _ := filepath.Glob(filepath.Join(out, "capacity-*")); len(drawn) > 0 {
		t.Errorf("the sweep drew %v", drawn)
	}
	if want := "figures: analyze plot " + js + " -o " + out + "\n"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	// Another k6 exit code aborts with it.
	code, _, stderr = run("107", "--levels", "1,2,4", "--max-failure-rate", "0.2", "--out-dir", filepath.Join(dir, "o2"), "capacity.js")
	if code != 107 || !strings.Contains(stderr, "k6 exited with code 107 at level 2") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	// --scrape of an https page trusts --ca-file's CA; its NaN is left out,
	// counted, and sweep.json is written.
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "vllm:num_requests_running NaN\nvllm:num_requests_waiting 2\n")
	}))
	defer ts.Close()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	sleep = "0.3" // each level lasts long enough for scrapes
	js4 := filepath.Join(dir, "r4.json")
	code, _, stderr = run("0", "--levels", "1", "--scrape", ts.URL+"/metrics", "--scrape-interval", "10ms", "--ca-file", ca,
		"--max-failure-rate", "0.2", "--out-dir", filepath.Join(dir, "o4"), "--json", js4, "capacity.js")
	var res4 struct {
		Levels []struct {
			Server struct {
				Scrapes, Errors, Rejected int
				LastError                 string `json:"last_error"`
				Waiting                   struct{ Peak *float64 }
			}
		}
	}
	raw, err = os.ReadFile(js4)
	if err != nil || json.Unmarshal(raw, &res4) != nil || len(res4.Levels) != 1 {
		t.Fatalf("exit %d, %v: %s\n%s", code, err, raw, stderr)
	}
	if s := res4.Levels[0].Server; s.Scrapes < 1 || s.Errors != 0 || s.Waiting.Peak == nil || *s.Waiting.Peak != 2 {
		t.Errorf("https scrape with --ca-file: %+v", s)
	}
	if !bytes.Contains(raw, []byte(`"rejected_values": `)) || bytes.Contains(raw, []byte(`"rejected_values": 0`)) {
		t.Errorf("sweep.json does not count the rejected NaN values")
	}

	// No level passing exits 99.
	code, _, _ = run("0", "--levels", "1", "--slo", "llm_ttft: p(50)<10", "--out-dir", filepath.Join(dir, "o3"), "capacity.js")
	if code != 99 {
		t.Errorf("no level passing: exit %d, want 99", code)
	}
}
