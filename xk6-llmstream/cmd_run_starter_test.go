package main

import (
	"bytes"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// TestRunStarterSaysWhy: the starter `init` writes, run with real k6 against
// an LLM_BASE_URL on which nothing listens, fails its threshold (exit 99) and
// run says why: "3 requests failed: connect ×3 — e.g. …" naming the address.
func TestRunStarterSaysWhy(t *testing.T) {
	bins := realK6Bins(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"init", dir}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("init: exit %d\n%s", code, stderr.String())
	}
	t.Setenv(runner.K6BinEnv, bins[0])
	t.Setenv(runner.BaseURLEnv, "http://"+addr+"/v1")
	t.Setenv("LLM_API_KEY", testKey)
	t.Setenv("LLM_ITERATIONS", "3")
	t.Setenv("LLM_VUS", "1")
	t.Setenv("K6_NO_USAGE_REPORT", "true")
	stdout.Reset()
	stderr.Reset()
	code := realMain([]string{"run", filepath.Join(dir, "script.js"), "--quiet", "--no-color"}, nil, &stdout, &stderr)
	if code != runner.ExitThresholdsFailed {
		t.Fatalf("exit %d, want 99\n%s\n%s", code, stdout.String(), stderr.String())
	}
	out := stderr.String()
	for _, want := range []string{"xk6-llmstream: 3 requests failed: connect ×3 — e.g. ", "dial tcp " + addr} {
		if !strings.Contains(out, want) {
			t.Errorf("run's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(stdout.String()+out, testKey) {
		t.Error("the key appears in the output")
	}
}
