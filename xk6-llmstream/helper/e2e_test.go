package helper

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// These tests run the real engine behind the helper, against the mock LLM and
// against small misbehaving upstreams.

// startMock serves a mock LLM with cfg on loopback.
func startMock(t *testing.T, cfg mockllm.Config) string {
	t.Helper()
	m, err := mockllm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m)
	t.Cleanup(func() {
		m.Close()
		srv.Close()
	})
	return srv.URL
}

// startHelper serves a helper with the real engine on loopback.
func startHelper(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := Start("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("helper Shutdown: %v", err)
		}
	})
	return s
}

func streamVia(t *testing.T, helperURL string, req map[string]any) (int, Answer, string) {
	t.Helper()
	body, _ := json.Marshal(req)
	resp, err := http.Post(helperURL+StreamPath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var a Answer
	if resp.StatusCode == 200 || bytes.Contains(raw, []byte(`"version":`)) { // a record, whatever the status
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("answer is not JSON: %v\n%s", err, raw)
		}
	}
	return resp.StatusCode, a, string(raw)
}

// fixedMock is a mock with a fixed schedule: 30 ms prefill, 10 ms per token.
func fixedMock() mockllm.Config {
	return mockllm.Config{Seed: 1, Default: mockllm.ModelConfig{
		Prefill: mockllm.Prefill{Base: 30 * time.Millisecond},
		ITL:     mockllm.ITL{Base: 10 * time.Millisecond},
	}}
}

func TestEndToEndDialects(t *testing.T) {
	t.Parallel()
	mock := startMock(t, fixedMock())
	h := startHelper(t)
	for _, tt := range []struct {
		api, path string
		body      map[string]any
	}{
		{"openai-chat", "/v1/chat/completions", map[string]any{"model": "m1", "max_tokens": 12,
			"messages": []any{map[string]any{"role": "user", "content": "Explain TTFT"}}}},
		{"openai-completions", "/v1/completions", map[string]any{"model": "m2", "max_tokens": 12, "prompt": "Explain TTFT"}},
		{"anthropic-messages", "/v1/messages", map[string]any{"model": "m3", "max_tokens": 12,
			"messages": []any{map[string]any{"role": "user", "content": "Explain TTFT"}}}},
		{"auto", "/v1/messages", map[string]any{"model": "m4", "max_tokens": 12,
			"messages": []any{map[string]any{"role": "user", "content": "Explain TTFT"}}}},
		{"openai-responses", "/v1/responses", map[string]any{"model": "m5", "max_output_tokens": 12,
			"input": []any{map[string]any{"role": "user", "content": "Explain TTFT"}}}},
		{"gemini", "/v1beta/models/m6:streamGenerateContent?alt=sse", map[string]any{"generationConfig": map[string]any{"maxOutputTokens": 12},
			"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Explain TTFT"}}}}}},
		{"cohere", "/v2/chat", map[string]any{"model": "m7", "max_tokens": 12,
			"messages": []any{map[string]any{"role": "user", "content": "Explain TTFT"}}}},
		{"ollama", "/api/chat", map[string]any{"model": "m8", "options": map[string]any{"num_predict": 12},
			"messages": []any{map[string]any{"role": "user", "content": "Explain TTFT"}}}},
	} {
		t.Run(tt.api, func(t *testing.T) {
			t.Parallel()
			code, a, raw := streamVia(t, h.URL(), map[string]any{
				"url": mock + tt.path, "api": tt.api, "body": tt.body,
				"headers": map[string]string{"Authorization": "Bearer " + testKey, "x-api-key": testKey, "anthropic-version": "2023-06-01",
					"x-goog-api-key": testKey},
				"keep_text": true, "keep_timeline": true,
			})
			if code != 200 || !a.OK {
				t.Fatalf("code %d: %s", code, raw)
			}
			if strings.Contains(raw, testKey) {
				t.Errorf("answer leaks the key")
			}
			wantAPI := tt.api
			if wantAPI == "auto" {
				wantAPI = "anthropic-messages"
			}
			wantModel, ok := tt.body["model"]
			if !ok {
				wantModel = "m6" // Gemini's model is in the path; its answer names it as modelVersion
			}
			if a.API != wantAPI || a.Model != wantModel || a.Status != 200 {
				t.Errorf("api %q model %q status %d", a.API, a.Model, a.Status)
			}
			itl := a.Values(metrics.ITL)
			if a.OutputTokens != 12 || a.TokenSource != "usage" || a.TextEvents != 12 || len(itl) != 11 {
				t.Errorf("tokens %d (%s), text events %d, %d ITL gaps; want 12, usage, 12, 11", a.OutputTokens, a.TokenSource, a.TextEvents, len(itl))
			}
			ttft, hasTTFT := a.Value(metrics.TTFT)
			_, hasTPOT := a.Value(metrics.TPOT)
			_, hasE2E := a.Value(metrics.E2E)
			_, hasAnswer := a.Value(metrics.TTFTAnswer)
			if !hasTTFT || !hasTPOT || !hasE2E || hasAnswer || a.Text == nil || *a.Text == "" {
				t.Fatalf("samples %v, text %v", a.Samples, a.Text)
			}
			// The mock's schedule: ≥ 30 ms to the first token, ≥ 10 ms per gap.
			// Lower bounds are exact (the mock never writes early); upper bounds
			// are generous (the machine is shared).
			if ttft < 30 || ttft > 30+2000 {
				t.Errorf("ttft %.3f ms, want ≈ 30", ttft)
			}
			for i, g := range itl {
				if g < 0 || g > 10+2000 {
					t.Errorf("itl[%d] = %.3f ms, want ≈ 10", i, g)
				}
			}
			var sum float64
			for _, g := range itl {
				sum += g
			}
			// The mock paces from the request's arrival and never writes early, so
			// the last token cannot be read before 30 + 11×10 ms (1 ms for rounding).
			if last := ttft + sum; last < 30+11*10-1 {
				t.Errorf("last token read at %.3f ms, before the 140 ms schedule", last)
			}
			// Ground truth: each stamped event was read after it was written, and
			// not long after.
			stamped := 0
			for _, e := range a.Timeline {
				if e.ServerNS == 0 {
					continue
				}
				stamped++
				lag := time.Duration(*a.StartUnixNS + e.AtNS - e.ServerNS)
				if lag < -time.Millisecond || lag > 2*time.Second {
					t.Errorf("event at %.3f ms: delivery lag %v", e.AtMS, lag)
				}
			}
			if stamped < 12 {
				t.Errorf("%d events with the mock's write stamp, want ≥ 12", stamped)
			}
			// ollama reports the mock's own timings: 30 ms prefill, 11 gaps of 10 ms.
			serverTPOT, hasServerTPOT := a.Value(metrics.ServerTPOT)
			if (tt.api == "ollama") != hasServerTPOT || (tt.api == "ollama") != (a.Server != nil) {
				t.Errorf("llm_server_tpot %v, server %+v for %s", a.Values(metrics.ServerTPOT), a.Server, tt.api)
			} else if a.Server != nil && (*a.Server.PrefillMS != 30 || *a.Server.DecodeMS != 110 || a.Server.OutputTokens != 12 || serverTPOT != MS(110*time.Millisecond/12)) {
				t.Errorf("server timings: prefill %v decode %v tokens %v tpot %v; want 30, 110, 12, %v", *a.Server.PrefillMS, *a.Server.DecodeMS, a.Server.OutputTokens, serverTPOT, MS(110*time.Millisecond/12))
			}
		})
	}
}

func TestEndToEndMockFaults(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		faults mockllm.Faults
		kind   string
		code   int // the helper's status to k6 (issue 11, item 8)
	}{
		{"429", mockllm.Faults{HTTP429: 1}, "http_429", 429},
		{"5xx", mockllm.Faults{HTTP5xx: 1}, "http_5xx", 503},
		{"disconnect", mockllm.Faults{Disconnect: 1}, "reset_midstream", 502},
		{"error event", mockllm.Faults{ErrorEvent: 1}, "stream_error", 502},
		{"not streamed", mockllm.Faults{NotStreamed: 1}, "not_streamed", 502},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := mockllm.Config{Seed: 3, APIKey: testKey, Default: mockllm.ModelConfig{Faults: tt.faults}}
			mock := startMock(t, cfg)
			h := startHelper(t)
			code, a, raw := streamVia(t, h.URL(), map[string]any{
				"url": mock + "/v1/chat/completions", "api": "openai-chat",
				"headers": map[string]string{"Authorization": "Bearer " + testKey},
				"body":    map[string]any{"model": "m", "max_tokens": 8, "messages": []any{}},
			})
			if code != tt.code || a.OK || a.Error == nil || a.Error.Kind != tt.kind {
				t.Fatalf("code %d, want %d with the record of error kind %s: %s", code, tt.code, tt.kind, raw)
			}
			if _, ok := a.Value(metrics.E2E); !ok {
				t.Errorf("a failed request still has llm_e2e")
			}
			if strings.Contains(raw, testKey) {
				t.Errorf("answer leaks the key: %s", raw)
			}
		})
	}
	// A wrong key: 401 from the mock, the key absent from the answer.
	mock := startMock(t, mockllm.Config{APIKey: "the-right-key-123456"})
	h := startHelper(t)
	_, a, raw := streamVia(t, h.URL(), map[string]any{
		"url": mock + "/v1/messages", "api": "anthropic-messages",
		"headers": map[string]string{"x-api-key": testKey},
		"body":    map[string]any{"model": "m", "max_tokens": 8, "messages": []any{}},
	})
	if a.Error == nil || a.Error.Kind != "http_401" || strings.Contains(raw, testKey) {
		t.Errorf("wrong key: %s", raw)
	}
}

// An upstream that echoes the request headers in its error body: the answer
// and the logs hold no key.
func TestEndToEndEchoingUpstreamLeaksNothing(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var hdrs strings.Builder
		for k, v := range r.Header {
			fmt.Fprintf(&hdrs, "%s=%s; ", k, strings.Join(v, ","))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"bad credentials, you sent %s","type":"invalid_request_error"}}`, strings.ReplaceAll(hdrs.String(), `"`, `'`))
	}))
	defer echo.Close()
	var logs syncLog
	h := startHelper(t, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	const custom = "custom-secret-0123456789"
	_, a, raw := streamVia(t, h.URL(), map[string]any{
		"url": echo.URL + "/v1/chat/completions?api-key=" + custom, "api": "openai-chat",
		"headers": map[string]string{"Authorization": "Bearer " + testKey, "X-Api-Key": testKey, "X-Other": custom},
		"body":    map[string]any{"model": "m", "messages": []any{}},
	})
	if a.Error == nil || a.Error.Kind != "http_401" {
		t.Fatalf("want http_401: %s", raw)
	}
	for _, s := range []string{testKey, custom} {
		if strings.Contains(raw, s) {
			t.Errorf("answer leaks %q: %s", s, raw)
		}
		if strings.Contains(logs.String(), s) {
			t.Errorf("logs leak %q: %s", s, logs.String())
		}
	}
}

// A redirect from an allowed upstream to a host off the allow-list is refused.
func TestEndToEndRedirectOffAllowList(t *testing.T) {
	t.Parallel()
	var reached atomic.Bool
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Store(true)
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data", http.StatusTemporaryRedirect)
	}))
	defer redir.Close()
	h := startHelper(t)
	_, a, raw := streamVia(t, h.URL(), map[string]any{
		"url": redir.URL + "/v1/chat/completions", "api": "openai-chat",
		"body": map[string]any{"model": "m", "messages": []any{}},
	})
	if !reached.Load() {
		t.Fatal("the allowed upstream was not reached")
	}
	if a.OK || a.Error == nil || !strings.Contains(a.Error.Message, "allow-list") {
		t.Errorf("redirect off the allow-list should fail naming the allow-list: %s", raw)
	}
}

// When the k6 side gives up, the upstream request is canceled: the upstream
// handler sees its request context end.
func TestEndToEndCancelsUpstream(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 1)
	upstreamGone := make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")
		http.NewResponseController(w).Flush()
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			upstreamGone <- struct{}{}
		case <-time.After(30 * time.Second):
		}
	}))
	defer slow.Close()
	h := startHelper(t)
	ctx, cancel := context.WithCancel(context.Background())
	body := `{"url":"` + slow.URL + `/v1/chat/completions","api":"openai-chat","body":{"model":"m"}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.URL()+StreamPath, strings.NewReader(body))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("upstream never started streaming")
	}
	cancel()
	select {
	case <-upstreamGone:
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream request was not canceled after the k6 side went away")
	}
	<-errc
}

// syncLog is a log destination safe for concurrent writers.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// WithMaxLineBytes reaches the engine: a line over the cap fails the request
// as malformed, and the helper answers it like any other failure.
func TestEndToEndMaxLine(t *testing.T) {
	t.Parallel()
	long := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"}}]}\n\n", strings.Repeat("x", 4096))
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer long.Close()
	for _, tt := range []struct {
		max  int
		kind string
	}{{1024, "malformed"}, {0, ""}} {
		h := startHelper(t, WithMaxLineBytes(tt.max))
		_, a, raw := streamVia(t, h.URL(), map[string]any{
			"url": long.URL + "/v1/chat/completions", "api": "openai-chat", "body": map[string]any{"model": "m"},
		})
		kind := ""
		if a.Error != nil {
			kind = a.Error.Kind
		}
		if kind != tt.kind {
			t.Errorf("max line %d: error kind %q, want %q: %.300s", tt.max, kind, tt.kind, raw)
		}
	}
}

// A load of concurrent streams through the helper to the mock: every one
// succeeds, and after Shutdown no goroutine is left behind.
func TestEndToEndLoadReturnsToBaseline(t *testing.T) {
	const streams = 300
	before := runtime.NumGoroutine()
	m, err := mockllm.New(mockllm.Config{Default: mockllm.ModelConfig{ITL: mockllm.ITL{Base: time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	mock := httptest.NewServer(m)
	h, err := Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: streams}
	client := &http.Client{Transport: tr}
	body := `{"url":"` + mock.URL + `/v1/chat/completions","api":"openai-chat","body":{"model":"m","max_tokens":20,"messages":[]}}`
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Post(h.URL()+StreamPath, "application/json", strings.NewReader(body))
			if err != nil {
				failed.Add(1)
				return
			}
			var a Answer
			if json.NewDecoder(resp.Body).Decode(&a) != nil || !a.OK || a.OutputTokens != 20 {
				failed.Add(1)
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d streams failed", n, streams)
	}
	if st := h.Handler().Stats(); st.Streams != streams || st.Failed != 0 || st.Active != 0 {
		t.Errorf("Stats = %+v", st)
	}
	tr.CloseIdleConnections()
	if err := h.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	m.Close()
	mock.Close()
	waitGoroutines(t, before)
}
