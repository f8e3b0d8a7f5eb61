package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// stuckEndpoint answers one streamed text event per request, except the
// request numbered stuckAt (from 1), whose headers it sends and then writes
// nothing until the client leaves. Each request's arrival is sent on
// arrived.
func stuckEndpoint(t *testing.T, stuckAt int) (url string, arrived <-chan int) {
	t.Helper()
	ch := make(chan int, 16)
	var count atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(count.Add(1))
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		ch <- n
		if n == stuckAt {
			<-r.Context().Done()
			return
		}
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"}}]}\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(2 * time.Millisecond)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, ch
}

// SIGTERM during the probe stops it at once: calibrate exits 143 (128 +
// SIGTERM) and says what the requests that finished measured, instead of
// waiting for the stuck request (before: only SIGKILL stopped it).
func TestCalibrateProbeStopsOnSignal(t *testing.T) {
	url, arrived := stuckEndpoint(t, 3)
	env := []string{runner.BaseURLEnv + "=" + url, "LLM_MAX_TOKENS=8"}
	signals := make(chan os.Signal, 1)
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- calibrateCmd(context.Background(), []string{"--probe", "5", "script.js"}, nil, &stdout, &stderr, signals, env)
	}()
	for n := range arrived {
		if n == 3 {
			break
		}
	}
	signals <- syscall.SIGTERM
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute): // a guard against a hang, not a timing claim
		t.Fatal("calibrate went on probing after SIGTERM")
	}
	var code exitCodeError
	if !errors.As(err, &code) || code.code != 143 {
		t.Fatalf("err = %v, want exit 143", err)
	}
	msg := stderr.String()
	if !strings.Contains(msg, "probe interrupted after 2 of 5 requests") || !strings.Contains(msg, "what they measured: probe of "+url) {
		t.Errorf("stderr: %q", msg)
	}
}

// Each probe request is bounded by --probe-timeout: a stuck endpoint fails
// the probe with a timeout naming the flag, not after 10 minutes.
func TestCalibrateProbeTimeout(t *testing.T) {
	url, _ := stuckEndpoint(t, 1)
	env := []string{runner.BaseURLEnv + "=" + url}
	var stdout, stderr bytes.Buffer
	err := calibrateCmd(context.Background(), []string{"--probe", "2", "--probe-timeout", "200ms", "script.js"}, nil, &stdout, &stderr, nil, env)
	if err == nil || !strings.Contains(err.Error(), "request 1 of 2") || !strings.Contains(err.Error(), "(timeout") ||
		!strings.Contains(err.Error(), "at most 200ms: calibrate --probe-timeout") {
		t.Errorf("err = %v", err)
	}
	err = calibrateCmd(context.Background(), []string{"--probe", "2", "--probe-timeout", "0s", "script.js"}, nil, &stdout, &stderr, nil, env)
	var usage usageError
	if !errors.As(err, &usage) {
		t.Errorf("--probe-timeout 0s: err = %v, want a usage error", err)
	}
}
