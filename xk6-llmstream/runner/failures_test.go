package runner

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
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

// An upstream's error text with terminal escapes (an OSC title, a CSI that
// clears the screen, a bell, a carriage return) is printed in run's failure
// summary escaped (escape.Line), never raw.
func TestRunFailureSummaryEscapesUpstreamText(t *testing.T) {
	const evil = "\x1b]0;owned\x07\x1b[2J\rbad model\x9b31m"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(evil))
	}))
	defer srv.Close()
	env, _ := fakeEnv(t, BaseURLEnv+"="+srv.URL+"/v1", "FAKE_K6_PROBE=/chat/completions", "FAKE_K6_EXIT=0")
	var stderr lockedBuffer
	if _, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	out := stderr.String()
	if !strings.Contains(out, `\x1b]0;owned\x07\x1b[2J`) || !strings.Contains(out, `bad model\x9b31m`) {
		t.Errorf("the summary lacks the escaped upstream text:\n%q", out)
	}
	if strings.ContainsAny(out, "\x1b\x07\r") || strings.Contains(out, "\x9b") {
		t.Errorf("a control character reached the terminal raw:\n%q", out)
	}
}
