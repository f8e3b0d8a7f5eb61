package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/sweep"
)

// serveSweep is a server sweep of this test binary as the mock
// (`xk6-llmstream mock --addr 127.0.0.1:PORT --profile P` plus the
// configuration's --slots), each server appending its pid to dir/pids.
type serveSweep struct {
	dir, port, profile string
}

func newServeSweep(t *testing.T, profile string) *serveSweep {
	t.Helper()
	if _, err := runner.FindK6(os.Environ()); err != nil {
		t.Skipf("no real k6 (set K6_BIN=/path/to/k6): %v", err)
	}
	if testing.Short() {
		t.Skip("-short: a server sweep with real k6 takes a minute or more")
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	p := filepath.Join(dir, "profile.json")
	if err := os.WriteFile(p, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	return &serveSweep{dir: dir, port: port, profile: p}
}

// run runs the sweep with args before the script and returns its exit code
// and its sweep.json.
func (s *serveSweep) run(t *testing.T, args ...string) (int, *sweep.Result, string) {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	serve := fmt.Sprintf("echo $$ >> %q; exec env %s=1 %q mock --addr 127.0.0.1:%s --profile %q",
		filepath.Join(s.dir, "pids"), asMainEnv, bin, s.port, s.profile)
	out := filepath.Join(s.dir, "out")
	args = append(append([]string{"--serve", serve, "--out-dir", out}, args...), "../scripts/capacity.js")
	env := append(os.Environ(), "LLM_BASE_URL=http://127.0.0.1:"+s.port+"/v1", "LLM_RATE=", "LLM_VUS=")
	var stdout, stderr bytes.Buffer
	err = sweepK6(context.Background(), args, &stdout, &stderr, nil, env)
	code := exitOK
	var ce exitCodeError
	switch {
	case errors.As(err, &ce):
		code = ce.code
	case err != nil:
		t.Fatalf("sweep: %v\nstderr:\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "sweep.json"))
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	var res sweep.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return code, &res, stdout.String()
}

// pids are the servers' pids in the order started.
func (s *serveSweep) pids(t *testing.T) []int {
	b, _ := os.ReadFile(filepath.Join(s.dir, "pids"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pid)
	}
	return out
}

// TestServeSweepServerKilledRealK6: three configurations of the mock
// (--serve-params slots=2,4,8) with real k6; the second configuration's
// server is killed (SIGKILL) during its first level. The first and third
// run both levels, the second is failed with the server's death as the
// reason, sweep.json holds all three, and neither a server nor its process
// group is left.
func TestServeSweepServerKilledRealK6(t *testing.T) {
	s := newServeSweep(t, `{"seed":1,"default":{"prefill":{"base":"50ms","jitter":{"dist":"none"}},"itl":{"base":"10ms","jitter":{"dist":"none"}},"output_tokens":8}}`)
	killed := make(chan int, 1)
	go func() { // the killer: once the second server runs and its first level has begun
		defer close(killed)
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if p := s.pids(t); len(p) >= 2 {
				if m, _ := filepath.Glob(filepath.Join(s.dir, "out", "config-2", "level-*.log")); len(m) > 0 {
					time.Sleep(1500 * time.Millisecond) // into the level
					_ = syscall.Kill(p[1], syscall.SIGKILL)
					killed <- p[1]
					return
				}
			}
		}
	}()
	code, res, stdout := s.run(t, "--serve-params", "slots=2,4,8", "--levels", "4,8", "--level-duration", "4s",
		"--slo", "llm_ttft: p(50)<500", "--max-failure-rate", "1")
	t.Logf("stdout:\n%s", stdout)
	if pid, ok := <-killed; !ok {
		t.Fatal("the second server never ran a level: nothing was killed")
	} else {
		t.Logf("killed the second server, pid %d", pid)
	}
	if code != 1 || len(res.Configs) != 3 || res.Version != sweep.ResultVersion {
		t.Fatalf("exit %d, %d configurations, version %d: want 1, 3, %d", code, len(res.Configs), res.Version, sweep.ResultVersion)
	}
	for i, c := range res.Configs {
		if want := "slots=" + []string{"2", "4", "8"}[i]; c.Name != want {
			t.Errorf("configuration %d is %q, want %q", i+1, c.Name, want)
		}
		if i == 1 {
			if c.Status != sweep.ConfigFailed || !strings.Contains(c.Reason, "signal: killed") || !strings.Contains(c.Reason, "level 1") {
				t.Errorf("second configuration: %s %q, want failed: killed during level 1", c.Status, c.Reason)
			}
			continue
		}
		if c.Status != sweep.ConfigDone || len(c.Levels) != 2 || c.Reason != "" {
			t.Errorf("configuration %d: %s %q with %d levels, want done with 2", i+1, c.Status, c.Reason, len(c.Levels))
		}
	}
	pids := s.pids(t)
	if len(pids) != 3 {
		t.Fatalf("%d servers started, want 3", len(pids))
	}
	for _, pid := range pids {
		if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) && processLives(pid) {
			t.Errorf("server %d or its process group is still there (%v)", pid, err)
		}
	}
}

// processLives is whether pid is a live (not zombie) process.
func processLives(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}
