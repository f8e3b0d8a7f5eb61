package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sweepJSON is a capacity sweep's result as xk6-llmstream sweep writes it
// (version 2, two levels), trimmed to what the figures read and a few more.
const sweepJSON = `{
  "version": 2,
  "mode": "rate",
  "unit": "req/s",
  "script": "capacity.js",
  "slo": ["llm_ttft: p(99)<500", "llm_requests_failed: rate<0.05"],
  "confidence": 0.95,
  "levels": [
    {"index": 1, "offered": 2, "achieved_rps": 2, "goodput_rps": 1.9, "latency": [
      {"metric": "llm_ttft", "count": 60, "percentiles": [{"name": "p(50)", "value": 100}, {"name": "p(90)", "value": 150}, {"name": "p(99)", "value": 200}]},
      {"metric": "llm_tpot", "count": 60, "percentiles": [{"name": "p(50)", "value": 10}, {"name": "p(90)", "value": 12}, {"name": "p(99)", "value": 15}]}]},
    {"index": 2, "offered": 4, "achieved_rps": 3.5, "goodput_rps": 2.5, "latency": [
      {"metric": "llm_ttft", "count": 110, "percentiles": [{"name": "p(50)", "value": 300}, {"name": "p(90)", "value": 450}, {"name": "p(99)", "value": 700}]}]}
  ],
  "max_passing": 2,
  "saturation": 4,
  "stopped": "stopped climbing",
  "k6_exit_code": 0
}
`

// TestPlotSweep: analyze plot draws a sweep result's capacity figures into
// the -o directory, under the names the sweep used to write them; the
// result is plotted alone, without k6 output's flags.
func TestPlotSweep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "sweep.json")
	if err := os.WriteFile(in, []byte(sweepJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "figs")
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"plot", in, "-o", out}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"capacity-latency.svg", "capacity-latency.png", "capacity-goodput.svg", "capacity-goodput.png"} {
		p := filepath.Join(out, name)
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
		if !strings.Contains(stdout.String(), "wrote "+p+"\n") {
			t.Errorf("stdout lacks %s:\n%s", p, stdout.String())
		}
	}
	k6 := filepath.Join(dir, "k6.json")
	writeK6JSON(t, k6, 20, func(int, time.Duration) float64 { return 100 })
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", in, "--metric", "llm_ttft", "-o", out}, "--metric apply to k6 output"},
		{[]string{"plot", k6, in, "-o", out}, "plot it alone"},
		{[]string{"plot", in}, "-o is required: the directory"},
	} {
		stderr.Reset()
		if code := realMain(tc.args, nil, &bytes.Buffer{}, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), exitUsage, tc.want)
		}
	}
	v4 := filepath.Join(dir, "v4.json")
	if err := os.WriteFile(v4, []byte(strings.Replace(sweepJSON, `"version": 2`, `"version": 4`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := realMain([]string{"plot", v4, "-o", out}, nil, &bytes.Buffer{}, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "version 4; this analyze draws versions 2 3") {
		t.Errorf("v4: exit %d, stderr %q", code, stderr.String())
	}
}
