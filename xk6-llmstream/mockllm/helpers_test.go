package mockllm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sseEvent is one server-sent event as the tests read it: its `event:` name
// (empty when none) and its data lines joined by "\n".
type sseEvent struct {
	name string
	data string
}

// parseSSE splits an SSE body into events (LF line ends, which is what the mock
// writes and the recordings use). It is the tests' own few lines, independent
// of the engine.
func parseSSE(body []byte) []sseEvent {
	var evs []sseEvent
	var cur sseEvent
	var data []string
	has := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if has {
				cur.data = strings.Join(data, "\n")
				evs = append(evs, cur)
			}
			cur, data, has = sseEvent{}, nil, false
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			cur.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			has = true
		case strings.HasPrefix(line, "data:"):
			v := strings.TrimPrefix(line, "data:")
			v = strings.TrimPrefix(v, " ")
			data = append(data, v)
			has = true
		}
	}
	if has {
		cur.data = strings.Join(data, "\n")
		evs = append(evs, cur)
	}
	return evs
}

// obj decodes an event's data as a JSON object, failing the test otherwise.
func (e sseEvent) obj(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.data), &m); err != nil {
		t.Fatalf("event %q data is not a JSON object: %v\n%s", e.name, err, e.data)
	}
	return m
}

// startServer starts a Server for cfg behind httptest and stops both at the
// end of the test.
func startServer(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		ts.Close()
	})
	return srv, ts.URL
}

// result is one request's answer as read by the tests.
type result struct {
	status  int
	header  http.Header
	body    []byte
	readErr error // an error reading the body (a broken stream)
}

// testClient keeps enough idle connections for the tests' concurrency (the
// default client keeps 2 per host and would dial for most requests).
var testClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}

func post(t testing.TB, url, body string, header ...string) result {
	t.Helper()
	return postCtx(t, context.Background(), testClient, url, body, header...)
}

func postCtx(t testing.TB, ctx context.Context, c *http.Client, url, body string, header ...string) result {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return result{readErr: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: b, readErr: err}
}

// logBuffer is a concurrency-safe Config.Log that the tests decode.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// records decodes the log's lines, keyed by seq.
func (l *logBuffer) records(t testing.TB) map[uint64]RequestLog {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[uint64]RequestLog{}
	dec := json.NewDecoder(bytes.NewReader(l.buf.Bytes()))
	dec.DisallowUnknownFields()
	for {
		var r RequestLog
		err := dec.Decode(&r)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("log line %d: %v", len(out)+1, err)
		}
		if _, dup := out[r.Seq]; dup {
			t.Fatalf("log: seq %d twice", r.Seq)
		}
		out[r.Seq] = r
	}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func chatBody(model string, maxTokens int, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"model":%q,"stream":true,"max_tokens":%d,"messages":[{"role":"user","content":"say something"}]%s}`, model, maxTokens, extra)
}
