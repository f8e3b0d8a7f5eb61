package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// moduleFolder maps each file init must write (its slash path in DIR) to its
// source under xk6-llmstream/js/: the entry, every file under xk6-llmstream/js/lib, the typings and the
// starters. It is read from the repository, not from init, so a file added to
// xk6-llmstream/js/lib that init does not write fails the test.
func moduleFolder(t *testing.T) map[string]string {
	t.Helper()
	want := map[string]string{
		"llmstream.js": "llmstream.js", "llmstream.d.ts": "llmstream.d.ts",
		"script.js": "starter/script.js", "script.ts": "starter/script.ts",
	}
	root := filepath.Join("js")
	err := filepath.WalkDir(filepath.Join(root, "lib"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		want[filepath.ToSlash(rel)] = filepath.ToSlash(rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 10 {
		t.Fatalf("xk6-llmstream/js/ holds only %v: want the entry, lib/, the typings and the starters", want)
	}
	return want
}

// initInto runs `init` into a new folder and returns it.
func initInto(t *testing.T, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "llm-test")
	var stdout, stderr bytes.Buffer
	if code := realMain(append(append([]string{"init"}, extra...), dir), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr.String())
	}
	return dir
}

func TestInitWritesModuleAndStarters(t *testing.T) {
	dir := initInto(t)
	folder := moduleFolder(t)
	// The written module is the one in xk6-llmstream/js/ (entry and lib/), byte for byte.
	for name, src := range folder {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("js", filepath.FromSlash(src)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("init wrote a %s that differs from %s", name, src)
		}
	}
	for _, s := range []string{"script.js", "script.ts"} {
		src, _ := os.ReadFile(filepath.Join(dir, s))
		if !bytes.Contains(src, []byte(`from './llmstream.js'`)) {
			t.Errorf("%s does not import './llmstream.js'", s)
		}
	}

	// A second init refuses, names what is there and changes nothing.
	mine := filepath.Join(dir, "script.js")
	if err := os.WriteFile(mine, []byte("// my own script\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"init", dir}, nil, &stdout, &stderr); code != exitUsage {
		t.Fatalf("init over existing files: exit %d, want %d", code, exitUsage)
	}
	for n := range folder {
		if !strings.Contains(stderr.String(), n) {
			t.Errorf("refusal does not name %s: %s", n, stderr.String())
		}
	}
	if got, _ := os.ReadFile(mine); string(got) != "// my own script\n" {
		t.Errorf("init without --force changed script.js")
	}
	if stdout.Len() != 0 {
		t.Errorf("init that refused printed %q", stdout.String())
	}

	// --force overwrites and prints each path written.
	stdout.Reset()
	if code := realMain([]string{"init", "--force", dir}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("init --force: exit %d: %s", code, stderr.String())
	}
	if got, _ := os.ReadFile(mine); string(got) == "// my own script\n" {
		t.Errorf("init --force left script.js as it was")
	}
	if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != len(folder) {
		t.Errorf("init --force printed %q, want one path per file", stdout.String())
	}
	if code := realMain([]string{"init", "a", "b"}, nil, &stdout, &stderr); code != exitUsage {
		t.Errorf("init with two folders: exit %d, want %d", code, exitUsage)
	}
}

// TestInitStarterUnderK6Sim runs the written script.js from its own folder under
// the k6 stand-in, against the real helper and mock, in each dialect its
// LLM_API comment names (the starter sends a prompt string, which the Client
// turns into the dialect's body).
func TestInitStarterUnderK6Sim(t *testing.T) {
	dir := initInto(t)
	m, err := mockllm.New(mockllm.Config{Seed: 1, Default: mockllm.ModelConfig{
		Prefill:      mockllm.Prefill{Base: 5 * time.Millisecond},
		ITL:          mockllm.ITL{Base: time.Millisecond},
		OutputTokens: mockllm.FixedCount(8),
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m)
	hs, err := helper.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Errorf("helper shutdown: %v", err)
		}
		ts.Close()
		if err := m.Close(); err != nil {
			t.Errorf("mock close: %v", err)
		}
	})
	for _, api := range []string{"openai-chat", "openai-completions", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) {
			checkStarterRun(t, filepath.Join(dir, "script.js"), map[string]string{
				"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": ts.URL, "LLM_API_KEY": testKey, "LLM_API": api,
			})
		})
	}
}

// checkStarterRun runs the starter under k6sim: 6 requests from 2 VUs, none failed.
func checkStarterRun(t *testing.T, script string, env map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := k6sim.Run(ctx, k6sim.Config{
		Script: script, Env: env,
		VUs: 2, Iterations: 6, Sleep: func(time.Duration) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Errorf("exit code %d, thresholds %+v", res.ExitCode, res.Thresholds)
	}
	if sc := res.Options.Scenarios["chat"]; sc.Executor != "shared-iterations" {
		t.Errorf("scenario chat: %+v, want a shared-iterations scenario", sc)
	}
	counts := map[string]int{}
	for _, s := range res.Samples {
		counts[s.Metric]++
		if s.Metric == "llm_requests_failed" && s.Value != 0 {
			t.Errorf("a request failed: %v", s.Tags)
		}
	}
	for _, m := range []string{"llm_ttft", "llm_tpot", "llm_e2e", "llm_requests_failed", "llm_slo_met"} {
		if counts[m] != 6 {
			t.Errorf("%d %s samples, want 6 (one per iteration); all: %v", counts[m], m, counts)
		}
	}
}

// TestInitStarterWithRealK6 runs both written starters, JavaScript and
// TypeScript, with real k6 through `xk6-llmstream run`, from the folder init wrote.
func TestInitStarterWithRealK6(t *testing.T) {
	bins := realK6Bins(t)
	dir := initInto(t)
	for _, bin := range bins {
		for _, script := range []string{"script.js", "script.ts"} {
			t.Run(script, func(t *testing.T) {
				results := filepath.Join(t.TempDir(), "results.json")
				t.Setenv(runner.K6BinEnv, bin)
				t.Setenv(runner.BaseURLEnv, "")
				t.Setenv("LLM_API_KEY", testKey)
				var stdout, stderr bytes.Buffer
				code := realMain([]string{"run", filepath.Join(dir, script), "--quiet", "--no-color", "--no-usage-report",
					"-e", "LLM_ITERATIONS=6", "-e", "LLM_VUS=2", "--out", "json=" + results}, nil, &stdout, &stderr)
				if code != 0 {
					t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", bin, script, code, stdout.String(), stderr.String())
				}
				if strings.Contains(stdout.String()+stderr.String(), testKey) {
					t.Errorf("output leaks the key")
				}
				counts := countMetrics(t, results)
				for _, m := range []string{"llm_ttft", "llm_tpot", "llm_requests_failed", "llm_slo_met"} {
					if counts[m] != 6 {
						t.Errorf("%d %s samples, want 6; all: %v", counts[m], m, counts)
					}
				}
			})
		}
	}
}

// countMetrics counts the Point lines by metric in a k6 --out json file.
func countMetrics(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct{ Type, Metric string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if line.Type == "Point" {
			counts[line.Metric]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return counts
}
