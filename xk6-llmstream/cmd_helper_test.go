package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// testKey is an API key that must never appear in any output.
const testKey = "sk-test-DO-NOT-LEAK-1234"

// syncBuffer is a bytes.Buffer safe for one writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startHelperCmd runs serveHelper with args in the background and returns the
// URL it printed first, its stderr, and a stop function returning its error.
func startHelperCmd(t *testing.T, args ...string) (string, *syncBuffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		err := serveHelper(ctx, args, pw, stderr)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		if sc.Scan() {
			lines <- sc.Text()
		} else {
			lines <- ""
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	var url string
	select {
	case url = <-lines:
	case err := <-done:
		cancel()
		t.Fatalf("helper exited early: %v\nstderr: %s", err, stderr)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("helper printed no URL")
	}
	stopped := false
	var stopErr error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			stopErr = <-done
		}
		return stopErr
	}
	t.Cleanup(func() { _ = stop() })
	return url, stderr, stop
}

func TestHelperCommandServes(t *testing.T) {
	url, stderr, stop := startHelperCmd(t, "--addr", "127.0.0.1:0", "--allow", "api.example.test", "--verbose")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first stdout line %q is not the base URL", url)
	}
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("healthz status %d", resp.StatusCode)
	}
	// A request carrying a key to a host off the allow-list, and one to an allowed
	// host that answers nothing (connection refused).
	for _, u := range []string{"https://api.openai.com/v1/chat/completions", "http://127.0.0.1:1/v1/chat/completions?key=" + testKey} {
		body := `{"url":"` + u + `","headers":{"Authorization":"Bearer ` + testKey + `"},"body":{"model":"m"}}`
		resp, err := http.Post(url+"/v1/stream", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), testKey) {
			t.Errorf("answer leaks the key: %s", b)
		}
	}
	if err := stop(); err != nil {
		t.Errorf("serveHelper returned %v after its context ended", err)
	}
	logs := stderr.String()
	if strings.Contains(logs, testKey) {
		t.Errorf("helper logs leak the key:\n%s", logs)
	}
	for _, want := range []string{"listening", "allow=loopback,api.example.test", "helper_forbidden", "stopped", "streams=1"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}

func TestHelperCommandRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Setenv(helperTokenEnv, "")
	var stdout, stderr bytes.Buffer
	err := serveHelper(context.Background(), []string{"--addr", "0.0.0.0:0"}, &stdout, &stderr)
	var ue usageError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v, want a usage error", err)
	}
	for _, want := range []string{"0.0.0.0:0", "--token", "LLMSTREAM_HELPER_TOKEN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout should be empty, got %q", stdout.String())
	}
	code := realMain([]string{"helper", "--addr", ":0"}, nil, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--token") {
		t.Errorf("realMain exit %d, stderr %q", code, stderr.String())
	}
}

func TestHelperCommandTokenFromEnv(t *testing.T) {
	const token = "env-token-0123456789abcdef"
	t.Setenv(helperTokenEnv, token)
	url, stderr, stop := startHelperCmd(t)
	post := func(auth string) int {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/stream", strings.NewReader(`{"url":"http://127.0.0.1:1/x","body":{}}`))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(""); code != 401 {
		t.Errorf("without token: %d, want 401", code)
	}
	// Accepted: the upstream at port 1 refuses the connection, answered 502 with its record.
	if code := post("Bearer " + token); code != 502 {
		t.Errorf("with token: %d, want 502 (the connect failure's record)", code)
	}
	if err := stop(); err != nil {
		t.Error(err)
	}
	if strings.Contains(stderr.String(), token) {
		t.Errorf("logs leak the helper token: %s", stderr)
	}
}

func TestHelperCommandUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--allow", "*"},
		{"--allow", "https://x"},
		{"--max-body", "lots"},
		{"--timeout", "0s"},
		{"--bogus"},
		{"extra-arg"},
	} {
		var stdout, stderr bytes.Buffer
		err := serveHelper(context.Background(), args, &stdout, &stderr)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("serveHelper(%q) = %v, want a usage error", args, err)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := serveHelper(context.Background(), []string{"-h"}, &stdout, &stderr); err != nil {
		t.Errorf("-h: %v", err)
	}
	if !strings.Contains(stderr.String(), "--allow") && !strings.Contains(stderr.String(), "-allow") {
		t.Errorf("-h prints no flags: %s", stderr.String())
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "4096": 4096, "100B": 100, "1KiB": 1024, "4MiB": 4 << 20, "4mib": 4 << 20,
		"1GiB": 1 << 30, "64KB": 64000, "2MB": 2000000, " 3 KiB ": 3072,
	} {
		got, err := parseByteSize(in)
		if err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "1.5MiB", "4TiB", "99999999999GiB"} {
		if _, err := parseByteSize(in); err == nil || !strings.Contains(err.Error(), in) {
			t.Errorf("parseByteSize(%q) error %v should name the input", in, err)
		}
	}
	var s byteSize = 4 << 20
	if s.String() != "4MiB" {
		t.Errorf("String() = %q", s.String())
	}
}

// TestHelperCommandScrapeErrors: each bad --scrape or --scrape-interval is a
// usage error naming the flag and what is wrong, before anything starts.
func TestHelperCommandScrapeErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--scrape", "http://127.0.0.1:1/metrics"}, "--scrape needs --records"},
		{[]string{"--records", "r.jsonl", "--scrape", "mock"}, "--scrape mock: the helper starts no mock"},
		{[]string{"--records", "r.jsonl", "--scrape", "ftp://127.0.0.1/metrics"}, `--scrape: scheme "ftp"`},
		{[]string{"--records", "r.jsonl", "--scrape", "http://u:" + testKey + "@127.0.0.1/metrics"}, "--scrape: the URL carries user info"},
		{[]string{"--records", "r.jsonl", "--scrape", "http://127.0.0.1/metrics", "--scrape-interval", "0s"}, "--scrape-interval must be positive"},
		{[]string{"--records", "r.jsonl", "--scrape", "http://vllm.internal:8000/metrics"}, "--scrape: scrape URL: refused: host vllm.internal:8000 is not on the allow-list"},
		{[]string{"--gpu-metrics", "http://127.0.0.1:1/metrics"}, "--gpu-metrics needs --records"},
		{[]string{"--records", "r.jsonl", "--gpu-metrics", "mock"}, "--gpu-metrics mock: the helper starts no mock"},
		{[]string{"--records", "r.jsonl", "--gpu-metrics", "http://dcgm.internal:9400/metrics"}, "--gpu-metrics: scrape URL: refused: host dcgm.internal:9400 is not on the allow-list"},
	} {
		var stdout, stderr bytes.Buffer
		err := serveHelper(context.Background(), append([]string{"--addr", "127.0.0.1:0"}, tt.args...), &stdout, &stderr)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want a usage error with %q", tt.args, err, tt.want)
		} else if strings.Contains(err.Error(), testKey) {
			t.Errorf("%q: the error repeats the URL's credentials: %v", tt.args, err)
		}
		if stdout.Len() != 0 {
			t.Errorf("%q: the helper started (stdout %q)", tt.args, stdout.String())
		}
	}
}

// TestHelperCommandScrape: with --scrape the records carry the mock's queue
// depth and running requests (0 and 0 for an idle mock: present, not
// absent), and the last log line counts the scrapes.
func TestHelperCommandScrape(t *testing.T) {
	m, err := mockllm.New(mockllm.Config{Default: mockllm.ModelConfig{OutputTokens: mockllm.FixedCount(2)}})
	if err != nil {
		t.Fatal(err)
	}
	var scraped atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			scraped.Add(1)
		}
		m.ServeHTTP(w, r)
	}))
	defer ts.Close()
	defer m.Close()
	path := filepath.Join(t.TempDir(), "records.jsonl")
	url, stderr, stop := startHelperCmd(t, "--addr", "127.0.0.1:0", "--records", path,
		"--scrape", ts.URL+"/metrics", "--scrape-interval", "1ms")
	for scraped.Load() < 2 { // the first scrape is in before the request
		time.Sleep(time.Millisecond)
	}
	body := `{"url":"` + ts.URL + `/v1/chat/completions","body":{"messages":[{"role":"user","content":"hi"}]}}`
	resp, err := http.Post(url+"/v1/stream", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"server_waiting":0,"server_running":0`)) {
		t.Errorf("the record has no server_waiting/server_running:\n%s", raw)
	}
	if !strings.Contains(stderr.String(), "msg=scrapes") || !strings.Contains(stderr.String(), "failed=0 last_error") {
		t.Errorf("no scrape summary in the logs:\n%s", stderr)
	}
}

// TestHelperCommandCAFile: a bad --ca-file is a usage error naming the flag
// and the file and saying what is wrong; with the mock's certificate in
// --ca-file the helper streams from the mock over https, without it the
// request fails to connect.
func TestHelperCommandCAFile(t *testing.T) {
	dir := t.TempDir()
	noCert := filepath.Join(dir, "no-cert.pem")
	if err := os.WriteFile(noCert, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.pem"): "no such file",
		noCert:                            "no PEM certificate in it",
	} {
		var stdout, stderr bytes.Buffer
		err := serveHelper(context.Background(), []string{"--addr", "127.0.0.1:0", "--ca-file", path}, &stdout, &stderr)
		var ue usageError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "--ca-file: ") || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("--ca-file %s: %v; want a usage error naming the flag and the file, saying %q", path, err, want)
		}
		if stdout.Len() != 0 {
			t.Errorf("--ca-file %s: the helper started (stdout %q)", path, stdout.String())
		}
	}

	m, err := mockllm.New(mockllm.Config{Default: mockllm.ModelConfig{OutputTokens: mockllm.FixedCount(2)}})
	if err != nil {
		t.Fatal(err)
	}
	tc, certPEM, err := mockllm.NewTLS(mockllm.TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(m)
	ts.TLS = tc
	ts.StartTLS()
	t.Cleanup(func() {
		m.Close()
		ts.Close()
	})
	certFile := filepath.Join(dir, "mock.pem")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	body := `{"url":"` + ts.URL + `/v1/chat/completions","api":"openai-chat","headers":{"Authorization":"Bearer ` + testKey + `"},"body":{"model":"m"}}`
	for _, trust := range []bool{true, false} {
		args := []string{"--addr", "127.0.0.1:0"}
		if trust {
			args = append(args, "--ca-file", certFile)
		}
		url, _, _ := startHelperCmd(t, args...)
		resp, err := http.Post(url+"/v1/stream", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ok := strings.Contains(string(b), `"ok":true`)
		if ok != trust || !trust && !strings.Contains(string(b), `"kind":"connect"`) {
			t.Errorf("--ca-file given %v: %s", trust, b)
		}
		if strings.Contains(string(b), testKey) {
			t.Errorf("the answer leaks the key: %s", b)
		}
	}
}
