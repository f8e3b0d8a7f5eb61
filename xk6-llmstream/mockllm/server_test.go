package mockllm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCloseStopsStreamsAndEveryGoroutine(t *testing.T) {
	// Not parallel: it counts the process's goroutines.
	before := runtime.NumGoroutine()
	log := &logBuffer{}
	srv, err := New(Config{Slots: 5, Log: log, Default: ModelConfig{ITL: ITL{Base: time.Hour}, OutputTokens: FixedCount(100)}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	const n = 20 // 5 decoding (stuck on a one-hour ITL), 15 queued
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = postCtx(t, context.Background(), client, ts.URL+"/v1/chat/completions", chatBody("m", 0, ""))
		}()
	}
	waitFor(t, "5 streams decoding and 15 waiting", func() bool {
		st := srv.Stats()
		return st.Active == 5 && st.Waiting == 15
	})
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, r := range results {
		if r.status != 200 || strings.Contains(string(r.body), "[DONE]") {
			t.Errorf("request %d: status %d, body ends %q: want a stream cut before [DONE]", i, r.status, tail(r.body))
		}
	}
	if r := post(t, ts.URL+"/v1/chat/completions", chatBody("m", 1, "")); r.status != http.StatusServiceUnavailable {
		t.Errorf("after Close: status %d, want 503", r.status)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	ts.Close()
	tr.CloseIdleConnections()
	testClient.CloseIdleConnections()

	recs := log.records(t)
	if len(recs) != n {
		t.Errorf("%d log lines, want %d (the refused request after Close is not logged)", len(recs), n)
	}
	for _, r := range recs {
		if r.Outcome != "client_gone" || r.Error != "server closed" {
			t.Errorf("seq %d: outcome %q, error %q", r.Seq, r.Outcome, r.Error)
		}
	}
	waitFor(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= before })
}

func tail(b []byte) string {
	if len(b) > 40 {
		b = b[len(b)-40:]
	}
	return string(b)
}

func TestModelsHealthAndUnknownPaths(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Models: map[string]ModelConfig{"b-model": {}, "a-model": {}}})
	get := func(path string, header ...string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, url+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	status, body := get("/v1/models")
	var list struct {
		Object string
		Data   []struct{ ID, Object string }
	}
	if err := json.Unmarshal(body, &list); err != nil || status != 200 || list.Object != "list" || len(list.Data) != 2 ||
		list.Data[0].ID != "a-model" || list.Data[1].ID != "b-model" || list.Data[0].Object != "model" {
		t.Errorf("OpenAI models: %d %s", status, body)
	}
	status, body = get("/v1/models", "anthropic-version", "2023-06-01")
	var alist struct {
		Data    []struct{ Type, ID string }
		HasMore bool   `json:"has_more"`
		FirstID string `json:"first_id"`
	}
	if err := json.Unmarshal(body, &alist); err != nil || status != 200 || len(alist.Data) != 2 || alist.Data[0].Type != "model" || alist.FirstID != "a-model" {
		t.Errorf("Anthropic models: %d %s", status, body)
	}
	if status, body = get("/healthz"); status != 200 || string(body) != "ok\n" {
		t.Errorf("healthz: %d %q", status, body)
	}
	if status, body = get("/v2/whatever"); status != 404 || !strings.Contains(string(body), "GET /v2/whatever") {
		t.Errorf("unknown path: %d %s", status, body)
	}
	if status, _ = get("/v1/chat/completions"); status != http.StatusMethodNotAllowed {
		t.Errorf("GET on a POST endpoint: %d", status)
	}
}

func TestBadRequestsNameTheField(t *testing.T) {
	t.Parallel()
	srv, url := startServer(t, Config{})
	for _, tc := range []struct {
		path, body, want string
		status           int
	}{
		{"/v1/chat/completions", ``, "request body is empty", 400},
		{"/v1/chat/completions", `[1]`, "not a JSON object", 400},
		{"/v1/chat/completions", `{"model": 5}`, "model", 400},
		{"/v1/chat/completions", `{"max_tokens": -3}`, "max_tokens: -3 is negative", 400},
		{"/v1/chat/completions", `{"messages": [{"role":"user","content":"ok"},{"role":"user","content":7}]}`, "messages[1].content", 400},
		{"/v1/messages", `{"system": {"a": 1}}`, "system", 400},
		{"/v1/completions", `{"prompt": {"a": 1}}`, "prompt: want a string", 400},
		{"/v1/completions", `{"prompt": "x"` + strings.Repeat(" ", maxBodyBytes) + `}`, "too large", 413},
	} {
		r := post(t, url+tc.path, tc.body)
		if r.status != tc.status || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("%s %.40q: %d %s; want %d and %q", tc.path, tc.body, r.status, r.body, tc.status, tc.want)
		}
	}
	if n := srv.Stats().BadRequests; n != 8 {
		t.Errorf("Stats.BadRequests = %d, want 8", n)
	}
}

func TestRequestLogLines(t *testing.T) {
	t.Parallel()
	log := &logBuffer{}
	srv, url := startServer(t, Config{Seed: 3, Log: log, Default: ModelConfig{
		Prefill: Prefill{Base: 2 * time.Millisecond}, ITL: ITL{Base: time.Millisecond}, OutputTokens: FixedCount(4),
	}})
	post(t, url+"/v1/messages", `{"model":"claude","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"a b"}]}`)
	post(t, url+"/v1/chat/completions", `{"model":"gpt","max_tokens":10,"messages":[]}`)
	post(t, url+"/v1/chat/completions", `{"model":`)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	recs := log.records(t)
	s := recs[0]
	if s.Model != "claude" || s.Dialect != "anthropic-messages" || s.Endpoint != "/v1/messages" || !s.Stream || s.Status != 200 ||
		s.Outcome != "ok" || s.InputTokens != 2 || s.OutputTokens != 4 || s.SentTokens != 4 || s.FinishReason != "end_turn" ||
		s.PrefillNS != int64(2*time.Millisecond) || s.ArrivalNS == 0 || s.EndNS < s.ArrivalNS {
		t.Errorf("stream line: %+v", s)
	}
	n := len(s.EventKinds)
	if len(s.EventDueNS) != n || len(s.EventWriteNS) != n || len(s.EventLateNS) != n || len(s.EventTokens) != n {
		t.Fatalf("event arrays of different lengths: %+v", s)
	}
	want := "message_start content_block_start ping text text text text content_block_stop message_delta message_stop"
	if got := strings.Join(s.EventKinds, " "); got != want {
		t.Errorf("event kinds %s\nwant %s", got, want)
	}
	for i := range s.EventKinds {
		// Lateness is write − due (on the monotonic clock; the wall clock
		// of the logged times agrees to well within a millisecond).
		if want := s.EventWriteNS[i] - s.ArrivalNS - s.EventDueNS[i]; abs(s.EventLateNS[i]-want) > int64(time.Millisecond) {
			t.Errorf("event %d: late %d, write − arrival − due %d", i, s.EventLateNS[i], want)
		}
		if s.EventLateNS[i] < 0 {
			t.Errorf("event %d written %v before it was due", i, time.Duration(-s.EventLateNS[i]))
		}
	}
	// The scheduled gaps are the ITL, exactly.
	if got := s.EventDueNS[4] - s.EventDueNS[3]; got != int64(time.Millisecond) {
		t.Errorf("scheduled gap %v, want 1ms", time.Duration(got))
	}
	if w := recs[1]; w.Stream || w.Status != 200 || strings.Join(w.EventKinds, " ") != "json" || w.EventTokens[0] != 4 {
		t.Errorf("non-stream line: %+v", w)
	}
	if b := recs[2]; b.Outcome != "rejected" || b.Status != 400 || !strings.Contains(b.Error, "request body") {
		t.Errorf("bad request line: %+v", b)
	}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestCloseReportsLogWriteErrors(t *testing.T) {
	t.Parallel()
	srv, err := New(Config{Log: failingWriter{}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for i := 0; i < 3; i++ {
		post(t, ts.URL+"/v1/completions", `{"prompt":"x","stream":true,"max_tokens":2}`)
	}
	if err := srv.Close(); err == nil || !strings.Contains(err.Error(), "request log: disk full") {
		t.Errorf("Close: %v, want the log's write error", err)
	}
}

func TestStatsAndLatenessHistogram(t *testing.T) {
	t.Parallel()
	var h histogram
	for v := int64(1); v <= 100000; v++ {
		h.add(v * 1000) // 1 µs .. 100 ms, uniform
	}
	s := h.summary()
	check := func(name string, got time.Duration, want float64) {
		if g := float64(got); g < want || g > want*1.04 {
			t.Errorf("%s = %v, want %v within +4%%", name, got, time.Duration(want))
		}
	}
	check("p50", s.P50, 50e6)
	check("p99", s.P99, 99e6)
	check("p99.9", s.P999, 99.9e6)
	if s.Count != 100000 || s.Max != 100*time.Millisecond {
		t.Errorf("count %d, max %v", s.Count, s.Max)
	}
	// The buckets themselves are tested in internal/histogram.
}

func FuzzParseRequest(f *testing.F) {
	f.Add(`{"model":"m","stream":true,"max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	f.Add(`{"prompt":[[1,2],[3]],"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)
	f.Add(`{"system":[{"type":"text","text":"s"}],"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"content":[{"type":"image"}]}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		for _, d := range []dialect{openAIChat, openAICompletions, anthropicMessages} {
			req, err := parseRequest(d, []byte(body))
			if err != nil {
				continue
			}
			if req.InputTokens < 0 || req.MaxTokens < 0 || req.ThinkingBudget < 0 {
				t.Fatalf("%s: %+v", d, req)
			}
		}
	})
}
