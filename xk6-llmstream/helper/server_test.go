package helper

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestStartRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:7070", "10.0.0.1:0"} {
		s, err := Start(addr)
		if err == nil {
			s.Shutdown(context.Background())
			t.Errorf("Start(%q) without a token succeeded", addr)
			continue
		}
		if !errors.Is(err, ErrTokenRequired) {
			t.Errorf("Start(%q): %v, want ErrTokenRequired", addr, err)
		}
		for _, want := range []string{addr, "--token", "LLMSTREAM_HELPER_TOKEN"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Start(%q) error %q does not name %q", addr, err, want)
			}
		}
	}
	if _, err := Start("no-port"); err == nil || !strings.Contains(err.Error(), `"no-port"`) {
		t.Errorf("Start(no-port) error %v should name the address", err)
	}
}

func TestStartServesOnLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"", "127.0.0.1:0", "localhost:0"} {
		s, err := Start(addr, WithStreamer(okStreamer()))
		if err != nil {
			t.Fatalf("Start(%q): %v", addr, err)
		}
		if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") && !strings.HasPrefix(s.URL(), "http://[::1]:") {
			t.Errorf("Start(%q).URL() = %q", addr, s.URL())
		}
		resp, err := http.Get(s.URL() + HealthPath)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "ok" {
			t.Errorf("healthz: %d %q", resp.StatusCode, b)
		}
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("second Shutdown: %v", err)
		}
		if _, err := http.Get(s.URL() + HealthPath); err == nil {
			t.Errorf("helper still answers after Shutdown")
		}
	}
}

// A token lets the helper bind loopback too, and then it is required there.
func TestStartWithTokenRequiresIt(t *testing.T) {
	t.Parallel()
	s, err := Start("127.0.0.1:0", WithToken("tok-0123456789abcdef"), WithStreamer(okStreamer()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	resp, err := http.Post(s.URL()+StreamPath, "application/json", strings.NewReader(`{"url":"http://127.0.0.1:1/x","body":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d without token, want 401", resp.StatusCode)
	}
}

// Shutdown whose grace period ends cancels running streams and returns only
// after their handlers have returned; no goroutine is left behind.
// TestShutdownAnswersCanceledStreams: streams still running when the grace
// ends are canceled and each caller gets a record of kind canceled (503), not
// an empty reply; Shutdown then reports no error (issue 11, item 3).
func TestShutdownAnswersCanceledStreams(t *testing.T) {
	before := runtime.NumGoroutine()
	fs := &fakeStreamer{block: true, started: make(chan struct{}, 3), canceled: make(chan error, 3)}
	s, err := Start("127.0.0.1:0", WithStreamer(fs))
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	type reply struct {
		code int
		body string
		err  error
	}
	replies := make(chan reply, 3)
	for range 3 {
		go func() {
			resp, err := client.Post(s.URL()+StreamPath, "application/json", strings.NewReader(`{"url":"http://127.0.0.1:1/x","body":{}}`))
			if err != nil {
				replies <- reply{err: err}
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			replies <- reply{resp.StatusCode, string(b), err}
		}()
	}
	for range 3 {
		select {
		case <-fs.started:
		case <-time.After(10 * time.Second):
			t.Fatal("streams did not start")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown = %v, want nil: every canceled stream was answered", err)
	}
	for range 3 {
		if err := <-fs.canceled; err == nil {
			t.Error("a stream's context was not canceled")
		}
		r := <-replies
		if r.err != nil || r.code != StatusCanceled || !strings.Contains(r.body, `"kind":"canceled"`) {
			t.Errorf("reply %d %q (%v), want %d with a canceled record", r.code, r.body, r.err, StatusCanceled)
		}
	}
	if st := s.Handler().Stats(); st.Active != 0 || st.Streams != 3 {
		t.Errorf("after Shutdown: %+v", st)
	}
	tr.CloseIdleConnections()
	waitGoroutines(t, before)
}

// waitGoroutines waits (bounded) for the goroutine count to come back to base.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, want ≤ %d:\n%s", n, base, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
