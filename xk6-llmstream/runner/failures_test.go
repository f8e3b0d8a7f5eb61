package runner

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
)

// TestRunSaysWhyRequestsFailed: k6 streams three requests to an LLM_BASE_URL
// on which nothing listens; after k6 exits, the run says how many failed, of
// which kind, and one example message naming the address — and never the key.
func TestRunSaysWhyRequestsFailed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env, _ := fakeEnv(t, BaseURLEnv+"=http://"+addr+"/v1", "LLM_API_KEY="+testKey,
		"FAKE_K6_PROBE=/chat/completions /chat/completions /chat/completions", "FAKE_K6_EXIT=99")
	var stderr lockedBuffer
	code, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr})
	if err != nil || code != 99 {
		t.Fatalf("Run: code %d, err %v\n%s", code, err, stderr.String())
	}
	out := stderr.String()
	// The probes without the helper's token are refused: a second kind.
	for _, want := range []string{"xk6-llmstream: 6 requests failed, by kind:", "  connect ×3 — e.g. ", "dial tcp " + addr, "helper_unauthorized ×3 — e.g. "} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, testKey) {
		t.Errorf("the key appears in the output:\n%s", out)
	}
}

func TestReportFailuresOneKind(t *testing.T) {
	var lines []string
	say := func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }
	reportFailures(nil, say)
	if len(lines) != 0 {
		t.Errorf("no failures printed %q", lines)
	}
	reportFailures([]helper.FailureKind{{Kind: "connect", Count: 3, Example: "dial tcp 127.0.0.1:9: connection refused"}}, say)
	if want := "3 requests failed: connect ×3 — e.g. dial tcp 127.0.0.1:9: connection refused"; len(lines) != 1 || lines[0] != want {
		t.Errorf("printed %q, want %q", lines, want)
	}
}
