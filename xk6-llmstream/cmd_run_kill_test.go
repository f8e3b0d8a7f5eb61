//go:build linux

package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// Nothing outlives the runner (issue 11, item 3): SIGKILL of `xk6-llmstream
// run` stops k6 (real k6 with K6_BIN, else a stand-in process that would run
// forever) and the mock (a process of its own), and the helper, which lives
// in the runner's process.
func TestKilledRunLeavesNothingBehind(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "long.js")
	if err := os.WriteFile(script, []byte(`
import { sleep } from 'k6';
import exec from 'k6/execution';
export const options = { vus: 1, duration: '10m' };
export default function () {
  if (exec.scenario.iterationInTest === 0) console.log('READY');
  sleep(0.1);
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	k6 := os.Getenv(runner.K6BinEnv)
	if k6 == "" {
		if p, err := exec.LookPath("k6"); err == nil {
			k6 = p
		}
	}
	standIn := k6 == ""
	if standIn {
		k6 = self
		t.Log("no k6: a stand-in process plays k6")
	}
	cmd := exec.Command(self, "run", script, "--no-color")
	cmd.Env = append(os.Environ(), asMainEnv+"=1", runner.K6BinEnv+"="+k6, runner.BaseURLEnv+"=",
		runner.HelperEnv+"=", standInEnv+"="+strconv.FormatBool(standIn))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	helperURL := regexp.MustCompile(`helper at (http://127\.0\.0\.1:\d+)`)
	var log strings.Builder
	var hURL string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if m := helperURL.FindStringSubmatch(sc.Text()); m != nil {
			hURL = m[1]
		}
		if strings.Contains(sc.Text(), "READY") {
			break
		}
	}
	if hURL == "" {
		t.Fatalf("the runner never said where its helper is, or k6 never became ready:\n%s", log.String())
	}
	t.Logf("runner output:\n%s", log.String())
	kids := children(t, cmd.Process.Pid)
	if len(kids) != 2 {
		t.Fatalf("the runner has children %v, want two: k6 and the mock", kids)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	go func() { // keep draining k6's output, which went to the same pipe
		for sc.Scan() {
		}
	}()

	// Failsafe bound, not a timing assertion: the defect is a k6 that never stops.
	deadline := time.Now().Add(60 * time.Second)
	for _, kid := range kids {
		for alive(kid) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(kid, syscall.SIGKILL)
				t.Fatalf("child %d of %v (k6 or the mock) still runs after the runner was killed", kid, kids)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if resp, err := http.Get(hURL + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("the helper at %s still answers after the runner was killed", hURL)
	}
}

// children lists the pids whose parent is pid (Linux /proc).
func children(t *testing.T, pid int) []int {
	t.Helper()
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// alive reports whether pid runs (a zombie waiting for its new parent to reap
// it does not run).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
