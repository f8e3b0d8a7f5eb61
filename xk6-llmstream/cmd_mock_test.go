package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// mockStderr is a stderr that the test reads while serveMock writes it.
type mockStderr struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *mockStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *mockStderr) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startMock runs serveMock with args until the test stops it, and returns its
// base URL (the first line it printed), a stop function returning serveMock's
// error, and its stderr.
func startMock(t *testing.T, args ...string) (string, func() error, *mockStderr) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &mockStderr{}
	done := make(chan error, 1)
	go func() {
		err := serveMock(ctx, args, pw, stderr)
		pw.CloseWithError(errors.New("serveMock returned"))
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("reading the base URL: %v (stderr: %s, serveMock: %v)", err, stderr.String(), <-done)
	}
	stopped := false
	var result error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			select {
			case result = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("serveMock did not return 20 s after its context ended")
			}
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return strings.TrimSuffix(line, "\n"), stop, stderr
}

func TestMockCommandServesAndStops(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "mock.jsonl")
	profile := filepath.Join("..", "scripts", "mock-profiles", "fast.json")
	url, stop, stderr := startMock(t, "--addr", "127.0.0.1:0", "--profile", profile, "--output-tokens", "3",
		"--models", "model-a,model-b", "--log", logPath, "--seed", "7")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not a loopback base URL", url)
	}

	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"model-a","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := strings.Count(string(body), `"content":"`); n != 4 || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Errorf("want a role chunk and 3 tokens (--output-tokens over the profile), got:\n%s", body)
	}

	resp, err = http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct{ Data []struct{ ID string } }
	_ = json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if len(models.Data) != 2 || models.Data[0].ID != "model-a" || models.Data[1].ID != "model-b" {
		t.Errorf("models: %+v", models)
	}

	if err := stop(); err != nil {
		t.Fatalf("serveMock: %v", err)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("still serving after its context ended")
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Seq          uint64   `json:"seq"`
		Model        string   `json:"model"`
		OutputTokens int      `json:"output_tokens"`
		EventKinds   []string `json:"event_kinds"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(log), &line); err != nil || line.Model != "model-a" || line.OutputTokens != 3 {
		t.Errorf("log %s: %+v, %v", log, line, err)
	}
	if s := stderr.String(); !strings.Contains(s, "serving model-a, model-b on "+url) || !strings.Contains(s, "1 requests, 1 streams, 1 completed") {
		t.Errorf("stderr:\n%s", s)
	}
}

func TestMockCommandAPIKeyNeverPrinted(t *testing.T) {
	const key = "sk-mock-do-not-print-1234"
	url, stop, stderr := startMock(t, "--api-key", key, "--prefill", "0s", "--itl", "0s")
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(`{"model":"m","stream":true,"max_tokens":2,"messages":[]}`))
	req.Header.Set("x-api-key", "wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || strings.Contains(string(b), key) {
		t.Errorf("wrong key: %d %s", resp.StatusCode, b)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if s := stderr.String(); strings.Contains(s, key) || !strings.Contains(s, "api key required") {
		t.Errorf("stderr:\n%s", s)
	}
}

func TestMockCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	certOut := filepath.Join(dir, "cert.pem")
	badProfile := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(badProfile, []byte(`{"default": {"itl": {"base": "soon"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		code  int
		inErr string
	}{
		{[]string{"--no-such-flag"}, exitUsage, "no-such-flag"},
		{[]string{"extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"--profile", badProfile}, exitUsage, "bad.json: default.itl.base"},
		{[]string{"--profile", filepath.Join(dir, "missing.json")}, exitUsage, "missing.json"},
		{[]string{"--fault-429", "0.7", "--fault-5xx", "0.7"}, exitUsage, "faults: rates sum to 1.4"},
		{[]string{"--slots", "-2"}, exitUsage, "slots: -2 is negative"},
		{[]string{"--output-tokens", "-1"}, exitUsage, "output_tokens.value: -1 is negative"},
		{[]string{"--reasoning-tokens", "-3"}, exitUsage, "reasoning_tokens.value: -3 is negative"},
		{[]string{"--tokens-per-event", "-1"}, exitUsage, "tokens_per_event"},
		{[]string{"--models", "a,,b"}, exitUsage, "empty model name"},
		{[]string{"--addr", "127.0.0.1:notaport"}, exitUsage, `--addr "127.0.0.1:notaport"`}, // a bad flag: exit 2, as README.md says
		{[]string{"--log", filepath.Join(dir, "no", "such", "dir", "x.jsonl")}, exitError, "--log"},
		{[]string{"--tls"}, exitUsage, "--tls needs --tls-cert-out FILE"},
		{[]string{"--tls-cert-out", certOut}, exitUsage, "--tls-cert-out needs --tls"},
		{[]string{"--handshake-delay", "10ms"}, exitUsage, "--handshake-delay needs --tls"},
		{[]string{"--tls", "--tls-cert-out", certOut, "--handshake-delay", "-1ms"}, exitUsage, "--handshake-delay must not be negative (got -1ms)"},
		{[]string{"--tls", "--tls-cert-out", certOut, "--handshake-share", "0.5"}, exitUsage, "--handshake-share needs a positive --handshake-delay"},
		{[]string{"--tls", "--tls-cert-out", certOut, "--handshake-delay", "1ms", "--handshake-share", "1.5"}, exitUsage, "--handshake-share must be more than 0 and at most 1 (got 1.5)"},
		{[]string{"--tls", "--tls-cert-out", certOut, "--handshake-delay", "1ms", "--handshake-share", "0"}, exitUsage, "--handshake-share must be"},
		{[]string{"--tls", "--tls-cert-out", filepath.Join(dir, "no", "such", "dir", "c.pem")}, exitError, "--tls-cert-out"},
		{[]string{"-h"}, exitOK, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := realMain(append([]string{"mock"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.inErr) {
			t.Errorf("mock %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr.String(), tc.code, tc.inErr)
		}
		if stdout.Len() != 0 {
			t.Errorf("mock %v printed %q on stdout", tc.args, stdout.String())
		}
	}
	if _, err := os.Stat(certOut); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused command wrote %s (%v)", certOut, err)
	}
}

// TestMockCommandTLS: with --tls the base URL is https on 127.0.0.1, the
// certificate is in --tls-cert-out, and an engine trusting it gets answers;
// with --handshake-delay and --no-keepalive every request sets up a new
// connection whose connect stage is at least the delay.
func TestMockCommandTLS(t *testing.T) {
	const delay = 20 * time.Millisecond
	certOut := filepath.Join(t.TempDir(), "mock.pem")
	url, _, stderr := startMock(t, "--tls", "--tls-cert-out", certOut, "--handshake-delay", delay.String(), "--no-keepalive",
		"--prefill", "0s", "--itl", "0s", "--output-tokens", "2")
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("first stdout line %q, want an https base URL on 127.0.0.1", url)
	}
	certPEM, err := os.ReadFile(certOut)
	if err != nil {
		t.Fatal(err)
	}
	c := engineTrusting(t, certPEM)
	for i := range 2 {
		rec := c.Do(context.Background(), &stream.Request{URL: url + "/v1/chat/completions",
			Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)})
		if rec.Err != nil || rec.OutputTokens != 2 {
			t.Fatalf("request %d: error %v, %d output tokens; want an answer of 2", i, rec.Err, rec.OutputTokens)
		}
		if rec.Stages.Reused || rec.Stages.Connect < delay {
			t.Errorf("request %d: reused %v, connect %v; want a new connection of at least %v", i, rec.Stages.Reused, rec.Stages.Connect, delay)
		}
	}
	for _, want := range []string{"on " + url, "certificate in " + certOut, "handshakes 20ms slower (share 1)", "keep-alive off"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestMockCommandNoKeepAlive: without TLS too, --no-keepalive makes every
// request connect anew (a plain mock would reuse the connection).
func TestMockCommandNoKeepAlive(t *testing.T) {
	for _, off := range []bool{false, true} {
		args := []string{"--prefill", "0s", "--itl", "0s", "--output-tokens", "2"}
		if off {
			args = append(args, "--no-keepalive")
		}
		url, _, _ := startMock(t, args...)
		c := engineTrusting(t, nil)
		for i := range 3 {
			rec := c.Do(context.Background(), &stream.Request{URL: url + "/v1/chat/completions",
				Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)})
			if rec.Err != nil {
				t.Fatal(rec.Err)
			}
			if wantNew := off || i == 0; rec.Stages.Reused == wantNew || (rec.Stages.Connect > 0) != wantNew {
				t.Errorf("--no-keepalive %v, request %d: reused %v, connect %v", off, i, rec.Stages.Reused, rec.Stages.Connect)
			}
		}
	}
}

// engineTrusting is the engine's client trusting certPEM besides the
// system's roots (nil: just those).
func engineTrusting(t *testing.T, certPEM []byte) *stream.Client {
	t.Helper()
	tr := stream.NewTransport()
	if certPEM != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(certPEM) {
			t.Fatalf("no certificate in %q", certPEM)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	c := stream.NewClient(stream.WithTransport(tr))
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestMockFlagsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "mock-flags.md"))
	if err != nil {
		t.Fatal(err)
	}
	newMockFlags(io.Discard).fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(string(doc), "`--"+f.Name) {
			t.Errorf("flag --%s is not in docs/mock-flags.md", f.Name)
		}
	})
}

// TestMockCommandHasEverySettingFlag: the command defines the flag of each
// setting mockllm declares, with its usage.
func TestMockCommandHasEverySettingFlag(t *testing.T) {
	fs := newMockFlags(io.Discard).fs
	for _, s := range mockllm.Settings() {
		if f := fs.Lookup(s.Flag); f == nil || f.Usage != s.Usage {
			t.Errorf("mock has no flag --%s with usage %q (got %+v)", s.Flag, s.Usage, f)
		}
	}
}
