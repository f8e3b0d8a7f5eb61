package helper

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// testKey is the key that must never leave the helper.
const testKey = "sk-test-DO-NOT-LEAK-1234"

// fakeStreamer records the requests it gets and answers with a fixed record, or
// blocks until the request's context ends when block is set.
type fakeStreamer struct {
	mu       sync.Mutex
	reqs     []*stream.Request
	rec      *stream.Record
	block    bool
	started  chan struct{} // closed... receives one value per blocking call
	canceled chan error    // the context error seen by a blocking call
}

func (f *fakeStreamer) Do(ctx context.Context, req *stream.Request) *stream.Record {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.block {
		f.started <- struct{}{}
		<-ctx.Done()
		f.canceled <- ctx.Err()
		return &stream.Record{Err: &stream.Error{Kind: stream.KindCanceled, Message: "canceled"}}
	}
	rec := *f.rec
	return &rec
}

func (f *fakeStreamer) last(t *testing.T) *stream.Request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reqs) == 0 {
		t.Fatal("the streamer got no request")
	}
	return f.reqs[len(f.reqs)-1]
}

func (f *fakeStreamer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// post sends body to the handler and returns status and decoded JSON answer.
func post(t *testing.T, h http.Handler, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, StreamPath, strings.NewReader(body))
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, w.Body.String())
	}
	return w.Code, m
}

func errorKind(m map[string]any) (kind, msg string) {
	e, _ := m["error"].(map[string]any)
	kind, _ = e["kind"].(string)
	msg, _ = e["message"].(string)
	return kind, msg
}

func okStreamer() *fakeStreamer {
	return &fakeStreamer{rec: &stream.Record{Dialect: stream.OpenAIChat, Status: 200, Start: time.Now(), Model: "m"}}
}

func TestStreamPassesRequestToEngine(t *testing.T) {
	t.Parallel()
	fs := okStreamer()
	h := NewHandler(WithStreamer(fs), WithTimeout(7*time.Second), WithIdleTimeout(3*time.Second))
	code, m := post(t, h, `{"url":"http://127.0.0.1:9/v1/chat/completions","api":"openai-chat",
		"headers":{"authorization":"Bearer `+testKey+`","anthropic-version":"2023-06-01","Host":"evil","connection":"close","Content-Length":"1"},
		"body": {"model":"m","messages":[]} }`, nil)
	if code != 200 || m["ok"] != true {
		t.Fatalf("code %d, answer %v", code, m)
	}
	req := fs.last(t)
	if req.URL != "http://127.0.0.1:9/v1/chat/completions" || req.Dialect != stream.OpenAIChat {
		t.Errorf("URL %q dialect %q", req.URL, req.Dialect)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization not passed through")
	}
	if got := req.Header.Get("Anthropic-Version"); got != "2023-06-01" {
		t.Errorf("anthropic-version = %q", got)
	}
	for _, hop := range []string{"Host", "Connection", "Content-Length"} {
		if _, ok := req.Header[hop]; ok {
			t.Errorf("hop-by-hop header %s was forwarded", hop)
		}
	}
	if string(req.Body) != `{"model":"m","messages":[]}` {
		t.Errorf("body = %s", req.Body)
	}
	if req.Timeout != 7*time.Second || req.IdleTimeout != 3*time.Second {
		t.Errorf("default timeouts = %v, %v", req.Timeout, req.IdleTimeout)
	}
	if req.NoIncludeUsage || req.KeepText || req.KeepTimeline {
		t.Errorf("defaults: NoIncludeUsage %v KeepText %v KeepTimeline %v", req.NoIncludeUsage, req.KeepText, req.KeepTimeline)
	}

	code, m = post(t, h, `{"url":"http://localhost:9/v1/messages","body":{},"include_usage":false,
		"timeout_ms":1500.5,"idle_timeout_ms":250,"keep_text":true,"keep_timeline":true,"itl":false,"future_field":[1]}`, nil)
	if code != 200 {
		t.Fatalf("code %d %v", code, m)
	}
	req = fs.last(t)
	if req.Dialect != stream.DialectAuto || !req.NoIncludeUsage || !req.KeepText || !req.KeepTimeline {
		t.Errorf("options not passed: %+v", req)
	}
	if req.Timeout != 1500500*time.Microsecond || req.IdleTimeout != 250*time.Millisecond {
		t.Errorf("timeouts = %v, %v", req.Timeout, req.IdleTimeout)
	}
	if m["itl_ms"] != nil {
		t.Errorf("itl:false should give itl_ms null, got %v", m["itl_ms"])
	}
	if _, ok := m["text"]; !ok {
		t.Errorf("keep_text: text missing")
	}
	if _, ok := m["timeline"]; !ok {
		t.Errorf("keep_timeline: timeline missing")
	}
}

func TestStreamRefusals(t *testing.T) {
	t.Parallel()
	fs := okStreamer()
	h := NewHandler(WithStreamer(fs), WithMaxBody(1024))
	tests := []struct {
		name, body string
		status     int
		kind       string
		msgHas     string
	}{
		{"not json", `{"url":`, 400, KindBadRequest, "not valid JSON"},
		{"not an object", `[1,2]`, 400, KindBadRequest, "JSON"},
		{"wrong type", `{"url":5,"body":{}}`, 400, KindBadRequest, `"url"`},
		{"missing url", `{"body":{}}`, 400, KindBadRequest, `missing "url"`},
		{"relative url", `{"url":"/v1/chat","body":{}}`, 400, KindBadRequest, "absolute"},
		{"ftp url", `{"url":"ftp://127.0.0.1/x","body":{}}`, 400, KindBadRequest, "http or https"},
		{"unknown api", `{"url":"http://127.0.0.1/x","api":"gemini-native","body":{}}`, 400, KindBadRequest, `"gemini-native"`},
		{"missing body", `{"url":"http://127.0.0.1/x"}`, 400, KindBadRequest, `missing "body"`},
		{"null body", `{"url":"http://127.0.0.1/x","body":null}`, 400, KindBadRequest, `missing "body"`},
		{"string body", `{"url":"http://127.0.0.1/x","body":"hi"}`, 400, KindBadRequest, "JSON object"},
		{"negative timeout", `{"url":"http://127.0.0.1/x","body":{},"timeout_ms":-1}`, 400, KindBadRequest, "timeout_ms"},
		{"zero idle timeout", `{"url":"http://127.0.0.1/x","body":{},"idle_timeout_ms":0}`, 400, KindBadRequest, "idle_timeout_ms"},
		{"bad header name", `{"url":"http://127.0.0.1/x","body":{},"headers":{"a b":"c"}}`, 400, KindBadRequest, `"a b"`},
		{"header injection", `{"url":"http://127.0.0.1/x","body":{},"headers":{"X-Key":"` + testKey + `\r\nX-Evil: 1"}}`, 400, KindBadRequest, "line break"},
		{"off the allow-list", `{"url":"https://api.openai.com/v1/chat/completions","body":{}}`, 403, KindForbidden, `"api.openai.com"`},
		{"metadata address", `{"url":"http://169.254.169.254/latest","body":{}}`, 403, KindForbidden, "--allow 169.254.169.254"},
		{"too large", `{"url":"http://127.0.0.1/x","body":{"p":"` + strings.Repeat("x", 2000) + `"}}`, 413, KindTooLarge, "1024 bytes"},
	}
	for _, tt := range tests {
		code, m := post(t, h, tt.body, nil)
		kind, msg := errorKind(m)
		if code != tt.status || kind != tt.kind || !strings.Contains(msg, tt.msgHas) {
			t.Errorf("%s: got %d %s %q, want %d %s containing %q", tt.name, code, kind, msg, tt.status, tt.kind, tt.msgHas)
		}
		if strings.Contains(msg, testKey) {
			t.Errorf("%s: message leaks the key: %q", tt.name, msg)
		}
	}
	if n := fs.count(); n != 0 {
		t.Errorf("refused requests reached the engine %d times", n)
	}
	if got := h.Stats().Refused; got != int64(len(tests)) {
		t.Errorf("Stats().Refused = %d, want %d", got, len(tests))
	}
}

func TestStreamTooLargeChunked(t *testing.T) {
	t.Parallel()
	h := NewHandler(WithStreamer(okStreamer()), WithMaxBody(100))
	// No Content-Length: the cap must hold while reading.
	r := httptest.NewRequest(http.MethodPost, StreamPath, io.MultiReader(strings.NewReader(`{"url":"http://127.0.0.1/x","body":{"p":"`), strings.NewReader(strings.Repeat("y", 500)+`"}}`)))
	r.ContentLength = -1
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), KindTooLarge) {
		t.Errorf("got %d %s", w.Code, w.Body)
	}
}

func TestAllowListOption(t *testing.T) {
	t.Parallel()
	a, err := ParseAllowList("api.openai.com")
	if err != nil {
		t.Fatal(err)
	}
	fs := okStreamer()
	h := NewHandler(WithStreamer(fs), WithAllowList(a))
	if code, m := post(t, h, `{"url":"https://api.openai.com/v1/chat/completions","body":{}}`, nil); code != 200 {
		t.Errorf("allowed host refused: %d %v", code, m)
	}
	if code, _ := post(t, h, `{"url":"https://api.anthropic.com/v1/messages","body":{}}`, nil); code != 403 {
		t.Errorf("host off the list: %d, want 403", code)
	}
}

func TestToken(t *testing.T) {
	t.Parallel()
	const token = "helper-token-0123456789"
	fs := okStreamer()
	h := NewHandler(WithStreamer(fs), WithToken(token))
	body := `{"url":"http://127.0.0.1:9/x","body":{}}`
	for name, hdr := range map[string]map[string]string{
		"missing":   nil,
		"wrong":     {"Authorization": "Bearer nope"},
		"no bearer": {"Authorization": token},
		"prefix":    {"Authorization": "Bearer " + token[:10]},
	} {
		code, m := post(t, h, body, hdr)
		if kind, _ := errorKind(m); code != 401 || kind != KindUnauthorized {
			t.Errorf("%s token: got %d %s, want 401 %s", name, code, kind, KindUnauthorized)
		}
	}
	if fs.count() != 0 {
		t.Fatal("unauthorized requests reached the engine")
	}
	if code, m := post(t, h, body, map[string]string{"Authorization": "Bearer " + token}); code != 200 {
		t.Errorf("right token: %d %v", code, m)
	}
	// /healthz needs no token.
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, HealthPath, nil))
	if w.Code != 200 || w.Body.String() != "ok" {
		t.Errorf("healthz: %d %q", w.Code, w.Body)
	}
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	h := NewHandler(WithStreamer(okStreamer()))
	for _, tt := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, StreamPath, 405, "POST"},
		{http.MethodPost, HealthPath, 405, "GET, HEAD"},
		{http.MethodGet, "/v1/chat/completions", 404, ""},
		{http.MethodHead, HealthPath, 200, ""},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
		if w.Code != tt.status || w.Header().Get("Allow") != tt.allow {
			t.Errorf("%s %s: %d Allow=%q, want %d Allow=%q", tt.method, tt.path, w.Code, w.Header().Get("Allow"), tt.status, tt.allow)
		}
		if tt.status >= 400 && !strings.Contains(w.Body.String(), KindBadRequest) {
			t.Errorf("%s %s: body %s", tt.method, tt.path, w.Body)
		}
	}
}

// An upstream error message, model or text that echoes the request's headers
// must come back redacted, and the logs must hold no key.
func TestRedactsEchoedSecrets(t *testing.T) {
	t.Parallel()
	const other = "x-custom-secret-value-42"
	fs := &fakeStreamer{rec: &stream.Record{
		Status: 401, Start: time.Now(), Model: "echo " + testKey,
		Err: &stream.Error{Kind: "http_401", Message: "invalid key Bearer " + testKey +
			"; headers: X-Custom: " + other + "; also sk-proj-abcdefghijklmnop; token " + "helper-query-secret"},
		Text: "you said " + testKey + " and version 2023-06-01",
	}}
	var logs bytes.Buffer
	h := NewHandler(WithStreamer(fs), WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	r := httptest.NewRequest(http.MethodPost, StreamPath, strings.NewReader(`{"url":"http://127.0.0.1:9/v1?key=helper-query-secret","body":{},"keep_text":true,
		"headers":{"Authorization":"Bearer `+testKey+`","X-Custom":"`+other+`","anthropic-version":"2023-06-01"}}`))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	out := w.Body.String()
	for _, secret := range []string{testKey, other, "sk-proj-abcdefghijklmnop", "helper-query-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("answer leaks %q: %s", secret, out)
		}
		if strings.Contains(logs.String(), secret) {
			t.Errorf("logs leak %q: %s", secret, logs.String())
		}
	}
	if !strings.Contains(out, Redacted) || !strings.Contains(out, "2023-06-01") {
		t.Errorf("answer should keep harmless values and mark redactions: %s", out)
	}
	if !strings.Contains(logs.String(), "upstream=http://127.0.0.1:9/v1 ") {
		t.Errorf("log should name the upstream without its query: %s", logs.String())
	}
}

// When the k6 side's connection goes away, the upstream request is canceled.
func TestCancelsWhenCallerGoesAway(t *testing.T) {
	t.Parallel()
	fs := &fakeStreamer{block: true, started: make(chan struct{}, 1), canceled: make(chan error, 1)}
	h := NewHandler(WithStreamer(fs))
	srv := httptest.NewServer(h)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+StreamPath, strings.NewReader(`{"url":"http://127.0.0.1:9/x","body":{}}`))
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case <-fs.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream never started")
	}
	if got := h.Stats().Active; got != 1 {
		t.Errorf("Active = %d while streaming, want 1", got)
	}
	cancel() // k6 gives up: the client closes the connection
	select {
	case err := <-fs.canceled:
		if err != context.Canceled {
			t.Errorf("engine context ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the engine's context was not canceled after the caller went away")
	}
	if err := <-done; err == nil {
		t.Error("the client request should have failed")
	}
	srv.Close()
	h.Wait()
	if st := h.Stats(); st.Active != 0 || st.Canceled != 1 || st.Streams != 1 {
		t.Errorf("Stats = %+v, want 0 active, 1 stream, 1 canceled", st)
	}
}
