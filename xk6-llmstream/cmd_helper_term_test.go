//go:build unix

package main

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// SIGTERM to the helper with streams in flight answers each with a record of
// kind canceled (503), not an empty reply, and the helper exits 0 after
// draining (issue 11, item 3).
func TestHelperSIGTERMAnswersInFlightStreams(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	arrived := make(chan struct{}, 3)
	release := make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select { // an upstream that never finishes on its own
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer stall.Close()
	defer close(release)

	cmd := exec.Command(self, "helper", "--grace", "0s")
	cmd.Env = append(os.Environ(), asMainEnv+"=1", helperTokenEnv+"=")
	out, _ := cmd.StdoutPipe()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatalf("the helper printed no URL: %s", stderr.String())
	}
	helperURL := strings.TrimSpace(sc.Text())

	type reply struct {
		code int
		body string
		err  error
	}
	replies := make(chan reply, 3)
	for range 3 {
		go func() {
			resp, err := http.Post(helperURL+"/v1/stream", "application/json",
				strings.NewReader(`{"url":"`+stall.URL+`/v1/chat/completions","body":{"model":"m"}}`))
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
		<-arrived
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r := <-replies
		if r.err != nil || r.code != 503 || !strings.Contains(r.body, `"kind":"canceled"`) {
			t.Errorf("in-flight stream answered %d %q (%v), want 503 with a canceled record", r.code, r.body, r.err)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("helper exited with %v after SIGTERM, want 0\n%s", err, stderr.String())
	}
}
