// Package capacity holds the test of scripts/capacity.js in a server sweep
// against the queueing model, in a test binary of its own: the sweep runs
// about two minutes of levels, and go test's 10-minute bound is per binary,
// so with -count=3 on a busy machine it must not share one with the other
// command tests.
package capacity

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/sweep"
)

// TestServeSweepMatchesModelRealK6: `xk6-llmstream sweep --serve` of the
// mock with fixed service times (200 ms prefill, 8 gaps of 20 ms: 0.36 s a
// request) at --slots 2, 4 and 8, each configuration searching its highest
// passing rate in levels of 4 s: each lies within 5% of the queueing model's
// capacity for its slot count (mockllm.Capacity: slots / 0.36 s = 5.56, 11.1,
// 22.2 req/s). SWEEP_SERVE_TEST_OUT, when set, keeps the sweep's output there.
func TestServeSweepMatchesModelRealK6(t *testing.T) {
	const (
		prefill = 200 * time.Millisecond
		itl     = 20 * time.Millisecond
		tokens  = 9
	)
	k6, err := runner.FindK6(os.Environ())
	if err != nil {
		t.Skipf("no real k6 (set K6_BIN=/path/to/k6): %v", err)
	}
	if testing.Short() {
		t.Skip("-short: a server sweep with real k6 takes about two minutes")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if keep := os.Getenv("SWEEP_SERVE_TEST_OUT"); keep != "" {
		out = keep
	}
	profile := filepath.Join(dir, "profile.json")
	if err := os.WriteFile(profile, []byte(fmt.Sprintf(`{"seed":1,"default":{"prefill":{"base":%q,"per_input_token":0,"jitter":{"dist":"none"}},`+
		`"itl":{"base":%q,"jitter":{"dist":"none"}},"output_tokens":%d}}`, prefill, itl, tokens)), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	bin := build(t, dir)

	start := time.Now()
	cmd := exec.Command(bin, "sweep", "--serve", fmt.Sprintf("exec %q mock --addr 127.0.0.1:%s --profile %q", bin, port, profile),
		"--out-dir", out, "--serve-params", "slots=2,4,8", "--search", "--min", "4", "--max", "32",
		"--resolution", "3%", "--budget", "9", "--level-duration", "4s",
		"--slo", fmt.Sprintf("llm_ttft: p(50)<%d", (prefill+100*time.Millisecond).Milliseconds()), "--max-failure-rate", "1",
		"../capacity.js")
	cmd.Env = append(os.Environ(), runner.K6BinEnv+"="+k6, "LLM_BASE_URL=http://127.0.0.1:"+port+"/v1", "LLM_RATE=", "LLM_VUS=")
	stdout, err := cmd.Output()
	var stderr []byte
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	t.Logf("the sweep took %v (%v)\n%s", time.Since(start).Round(time.Second), err, stdout)
	b, rerr := os.ReadFile(filepath.Join(out, "sweep.json"))
	if rerr != nil {
		t.Fatalf("%v\nstderr:\n%s", rerr, stderr)
	}
	var res sweep.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Configs) != 3 {
		t.Fatalf("%d configurations, want 3\nstderr:\n%s", len(res.Configs), stderr)
	}
	for i, slots := range []int{2, 4, 8} {
		c := res.Configs[i]
		model := mockllm.Capacity(slots, prefill, itl, tokens)
		if c.Status != sweep.ConfigDone || c.MaxPassing == nil {
			t.Errorf("slots %d: %s %q, max passing %v", slots, c.Status, c.Reason, c.MaxPassing)
			continue
		}
		t.Logf("slots %d: max passing %.3g req/s, model %.3g req/s (%+.1f%%)", slots, *c.MaxPassing, model, 100*(*c.MaxPassing/model-1))
		if math.Abs(*c.MaxPassing/model-1) > 0.05 {
			t.Errorf("slots %d: max passing %.3g req/s, not within 5%% of the model's %.3g req/s", slots, *c.MaxPassing, model)
		}
	}
}

// build builds xk6-llmstream into dir and returns its path.
func build(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "xk6-llmstream")
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building xk6-llmstream needs the go command on PATH: %v", err)
	}
	if b, err := exec.Command(gobin, "build", "-o", bin, "../../xk6-llmstream").CombinedOutput(); err != nil {
		t.Fatalf("go build ../../xk6-llmstream: %v\n%s", err, b)
	}
	return bin
}
