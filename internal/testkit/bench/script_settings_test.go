package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

func TestParseScriptSettings(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	s, err := parseScriptSettings(env(), root)
	if err != nil {
		t.Fatal(err)
	}
	if s.script != filepath.Join(root, "scripts", "ramping-vus.js") || s.ttft != 50*time.Millisecond || s.itl != 20*time.Millisecond ||
		s.tokens != 64 || s.nice != runner.DefaultK6Nice || s.inProcess {
		t.Errorf("defaults: %+v", s)
	}
	if _, err := os.Stat(s.script); err != nil {
		t.Errorf("the default script: %v", err)
	}
	s, err = parseScriptSettings(env("LLMSTREAM_BENCH_SCRIPT", "scripts/ci-gate.js", "LLMSTREAM_BENCH_TTFT", "0s", "LLMSTREAM_BENCH_ITL", "5ms",
		"LLMSTREAM_BENCH_TOKENS", "128", "LLMSTREAM_BENCH_K6_NICE", "0", "LLMSTREAM_BENCH_MOCK_INPROC", "1"), root)
	if err != nil || s.script != filepath.Join(root, "scripts", "ci-gate.js") || s.ttft != 0 || s.itl != 5*time.Millisecond || s.tokens != 128 || s.nice != 0 || !s.inProcess {
		t.Errorf("set: %+v, %v", s, err)
	}
	for _, c := range []struct{ k, v, want string }{
		{"LLMSTREAM_BENCH_SCRIPT", "scripts/nope.js", `LLMSTREAM_BENCH_SCRIPT="scripts/nope.js": no such script file`},
		{"LLMSTREAM_BENCH_SCRIPT", "scripts", "no such script file"},
		{"LLMSTREAM_BENCH_ITL", "0s", `LLMSTREAM_BENCH_ITL="0s"`},
		{"LLMSTREAM_BENCH_TTFT", "-1ms", `LLMSTREAM_BENCH_TTFT="-1ms"`},
		{"LLMSTREAM_BENCH_TOKENS", "0", `LLMSTREAM_BENCH_TOKENS="0"`},
		{"LLMSTREAM_BENCH_K6_NICE", "0,10", "takes one whole number"},
		{"LLMSTREAM_BENCH_MOCK_INPROC", "yes", `LLMSTREAM_BENCH_MOCK_INPROC="yes"`},
	} {
		if _, err := parseScriptSettings(env(c.k, c.v), root); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%q: error %v, want one with %q", c.k, c.v, err, c.want)
		}
	}
}

// PeakInFlight counts as calibrate does: in flight at a request's start.
func TestPeakInFlight(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		starts, ends []int64
		want         int
	}{
		{nil, nil, 0},
		{[]int64{0}, []int64{10}, 1},
		{[]int64{0, 10, 20}, []int64{10, 20, 30}, 2},    // one ends as the next starts: both count
		{[]int64{0, 11, 22}, []int64{10, 21, 32}, 1},    // back to back
		{[]int64{5, 0, 1, 2}, []int64{9, 100, 3, 6}, 3}, // any order
	} {
		if got := PeakInFlight(c.starts, c.ends); got != c.want {
			t.Errorf("PeakInFlight(%v, %v) = %d, want %d", c.starts, c.ends, got, c.want)
		}
	}
}

// measureScript takes read − stamp of every text event after the first, the
// write stamps with them, and counts failed requests apart.
func TestMeasureScript(t *testing.T) {
	t.Parallel()
	start := time.Unix(1_700_000_000, 0)
	s0 := start.UnixNano()
	ok := &stream.Record{Start: start, E2E: 200 * time.Millisecond, Timeline: []stream.EventTime{
		{At: 10 * time.Millisecond, ServerNS: s0 + int64(9*time.Millisecond)},                 // role
		{At: 50 * time.Millisecond, ServerNS: s0 + int64(49*time.Millisecond), Text: true},    // ttft
		{At: 70 * time.Millisecond, ServerNS: s0 + int64(69500*time.Microsecond), Text: true}, // 0.5 ms
		{At: 90 * time.Millisecond, ServerNS: s0 + int64(88*time.Millisecond), Text: true},    // 2 ms
		{At: 91 * time.Millisecond, ServerNS: s0 + int64(90*time.Millisecond)},                // finish
	}}
	failed := &stream.Record{Start: start.Add(time.Millisecond), E2E: time.Millisecond, Err: &stream.Error{Kind: "http_status", Message: "429"}}
	r := measureScript([]*stream.Record{ok, failed})
	if r.requests != 2 || r.failed != 1 || r.peak != 2 || !strings.Contains(r.firstErr, "429") {
		t.Errorf("requests %d failed %d peak %d first error %q", r.requests, r.failed, r.peak, r.firstErr)
	}
	want := []time.Duration{500 * time.Microsecond, 2 * time.Millisecond}
	if got := r.lag.By[PhaseMid]; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("mid lags %v, want %v", got, want)
	}
	if w := r.lag.MidWriteNS; len(w) != 2 || w[0] != s0+int64(69500*time.Microsecond) || w[1] != s0+int64(88*time.Millisecond) {
		t.Errorf("mid write stamps %v", w)
	}
}
