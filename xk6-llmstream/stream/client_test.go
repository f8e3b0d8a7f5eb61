package stream

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/redact"
)

const testKey = "sk-test-0123456789abcdefABCDEF"

// chatEvent is one OpenAI chat chunk as an SSE event.
func chatEvent(content string) string {
	b, _ := json.Marshal(map[string]any{
		"object": "chat.completion.chunk", "model": "served-model",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}},
	})
	return "data: " + string(b) + "\n\n"
}

const (
	roleEvent   = `data: {"object":"chat.completion.chunk","model":"served-model","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	finishEvent = `data: {"object":"chat.completion.chunk","model":"served-model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	usageEvent  = `data: {"object":"chat.completion.chunk","model":"served-model","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}` + "\n\n"
	doneEvent   = "data: [DONE]\n\n"
)

// goodStream is a complete chat stream with three text events and usage.
var goodStream = roleEvent + chatEvent("a") + chatEvent("b") + chatEvent("c") + finishEvent + usageEvent + doneEvent

// anthropicStream is a complete Anthropic stream with two text events.
var anthropicStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"b\"}}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
}

// writeFlush writes s and flushes it to the client.
func writeFlush(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	_ = http.NewResponseController(w).Flush()
}

// stall blocks until the client goes away (or the test ends). The request
// body is read first: the server only notices a closed connection (and
// cancels the request's context) once the body has been read.
func stall(r *http.Request, release <-chan struct{}) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-release:
	}
}

func chatRequest(url string) *Request {
	return &Request{
		URL:    url + "/v1/chat/completions",
		Header: http.Header{"Authorization": {"Bearer " + testKey}},
		Body:   []byte(`{"model":"asked-model","messages":[{"role":"user","content":"hi"}],"max_tokens":5}`),
	}
}

func TestDoSuccess(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		writeFlush(w, goodStream)
	}))
	defer srv.Close()
	c := NewClient()
	defer c.CloseIdleConnections()
	req := chatRequest(srv.URL)
	req.KeepText, req.KeepTimeline = true, true
	rec := c.Do(context.Background(), req)
	if rec.Err != nil {
		t.Fatalf("unexpected error: %v", rec.Err)
	}
	checkInvariants(t, rec)
	if rec.Status != 200 || rec.Dialect != OpenAIChat || rec.Model != "served-model" || rec.Text != "abc" {
		t.Errorf("status %d dialect %s model %q text %q", rec.Status, rec.Dialect, rec.Model, rec.Text)
	}
	if rec.TokenSource != TokensFromUsage || rec.OutputTokens != 3 || rec.InputTokens != 7 || rec.FinishReason != "stop" {
		t.Errorf("tokens %d/%d from %s, finish %q", rec.OutputTokens, rec.InputTokens, rec.TokenSource, rec.FinishReason)
	}
	if !rec.HasTTFT || !rec.HasTPOT || rec.Events != 7 || rec.TextEvents != 3 || len(rec.ITL) != 2 {
		t.Errorf("HasTTFT %v HasTPOT %v events %d text %d ITL %v", rec.HasTTFT, rec.HasTPOT, rec.Events, rec.TextEvents, rec.ITL)
	}
	if !(rec.Headers <= rec.FirstEvent && rec.FirstEvent <= rec.TTFT && rec.TTFT <= rec.E2E) {
		t.Errorf("times out of order: headers %v first %v ttft %v e2e %v", rec.Headers, rec.FirstEvent, rec.TTFT, rec.E2E)
	}
	if rec.Start.IsZero() || rec.Bytes != int64(len(goodStream)) {
		t.Errorf("start %v, %d bytes, want %d", rec.Start, rec.Bytes, len(goodStream))
	}
}

// The client path decodes every recording exactly as Decode does.
func TestDoMatchesDecodeOnRecordings(t *testing.T) {
	t.Parallel()
	c := NewClient()
	defer c.CloseIdleConnections()
	for _, path := range sseFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ndjson := strings.HasSuffix(path, ".ndjson")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sseHeaders(w)
			if ndjson { // as ollama sends its native stream
				w.Header().Set("Content-Type", "application/x-ndjson")
			}
			// Odd-sized flushed writes, so events straddle reads.
			for rest := data; len(rest) > 0; {
				n := min(len(rest), 97)
				writeFlush(w, string(rest[:n]))
				rest = rest[n:]
			}
		}))
		want, err := Decode(bytes.NewReader(data), DialectAuto)
		if err != nil {
			t.Fatal(err)
		}
		// No dialect in the path: the engine must detect it from the events,
		// and must not add stream_options (it cannot know the dialect yet).
		rec := c.Do(context.Background(), &Request{URL: srv.URL + "/generate", Body: []byte(`{"model":"x"}`), KeepText: true, KeepTimeline: true})
		srv.Close()
		g1, g2 := summarize(want), summarize(rec)
		g1.Bytes, g2.Bytes = 0, 0
		if g1.Model == "" {
			g1.Model = "x"
		}
		if !reflectEqualJSON(g1, g2) {
			t.Errorf("%s: Do and Decode differ:\n%+v\n%+v", filepath.Base(path), g2, g1)
		}
		checkInvariants(t, rec)
	}
}

func reflectEqualJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestDoRequestBody(t *testing.T) {
	t.Parallel()
	type seen struct {
		body   map[string]any
		header http.Header
		path   string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		got <- seen{m, r.Header.Clone(), r.URL.Path}
		sseHeaders(w)
		if strings.HasSuffix(r.URL.Path, "/messages") {
			writeFlush(w, anthropicStream)
			return
		}
		writeFlush(w, goodStream)
	}))
	defer srv.Close()
	c := NewClient()
	defer c.CloseIdleConnections()
	tests := []struct {
		name        string
		path        string
		body        string
		noUsage     bool
		header      http.Header
		wantOptions any // stream_options sent, nil if absent
	}{
		{"openai chat gets include_usage", "/v1/chat/completions", `{"model":"m","messages":[],"temperature":0.5}`, false, nil,
			map[string]any{"include_usage": true}},
		{"caller options kept", "/v1/chat/completions", `{"model":"m","stream":false,"stream_options":{"continuous_usage_stats":true}}`, false, nil,
			map[string]any{"include_usage": true, "continuous_usage_stats": true}},
		{"caller's include_usage respected", "/v1/completions", `{"model":"m","stream_options":{"include_usage":false}}`, false, nil,
			map[string]any{"include_usage": false}},
		{"NoIncludeUsage", "/v1/chat/completions", `{"model":"m"}`, true, nil, nil},
		{"anthropic gets no stream_options", "/v1/messages", `{"model":"m","max_tokens":5}`, false, nil, nil},
		{"unknown path gets no stream_options", "/generate", `{"model":"m"}`, false, nil, nil},
		{"caller headers win", "/v1/chat/completions", `{"model":"m"}`, false,
			http.Header{"Accept": {"*/*"}, "X-Api-Key": {"k"}}, map[string]any{"include_usage": true}},
	}
	for _, tt := range tests {
		rec := c.Do(context.Background(), &Request{URL: srv.URL + tt.path, Body: []byte(tt.body), NoIncludeUsage: tt.noUsage, Header: tt.header})
		s := <-got
		if s.body["stream"] != true {
			t.Errorf("%s: stream = %v", tt.name, s.body["stream"])
		}
		if !reflectEqualJSON(s.body["stream_options"], tt.wantOptions) {
			t.Errorf("%s: stream_options = %v, want %v", tt.name, s.body["stream_options"], tt.wantOptions)
		}
		if s.body["model"] != "m" {
			t.Errorf("%s: model = %v", tt.name, s.body["model"])
		}
		if tt.name == "openai chat gets include_usage" && s.body["temperature"] != 0.5 {
			t.Errorf("temperature lost: %v", s.body)
		}
		wantAccept := "text/event-stream"
		if tt.header != nil {
			wantAccept = "*/*"
			if s.header.Get("X-Api-Key") != "k" {
				t.Errorf("%s: caller header not sent", tt.name)
			}
		}
		if s.header.Get("Accept") != wantAccept || s.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: Accept %q, Content-Type %q", tt.name, s.header.Get("Accept"), s.header.Get("Content-Type"))
		}
		if s.header.Get("Accept-Encoding") != "" {
			t.Errorf("%s: Accept-Encoding %q sent without the caller asking", tt.name, s.header.Get("Accept-Encoding"))
		}
		if rec.Err != nil {
			t.Errorf("%s: %v", tt.name, rec.Err)
		}
	}
}

// hijacked answers with raw bytes on the connection, then closes it; with
// rst the close is a TCP reset.
func hijacked(raw string, rst bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		_, _ = buf.WriteString(raw)
		_ = buf.Flush()
		if tc, ok := conn.(*net.TCPConn); ok && rst {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close()
	}
}

func chunked(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

func compress(t testing.TB, coding, s string) []byte {
	var b bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "zlib":
		w = zlib.NewWriter(&b)
	case "flate":
		fw, err := flate.NewWriter(&b, flate.DefaultCompression)
		if err != nil {
			t.Fatal(err)
		}
		w = fw
	}
	_, _ = io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDoErrorKinds(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // after the parallel subtests
	longText := strings.Repeat("x", 1<<20)
	longLine := chatEvent(longText)
	gz := compress(t, "gzip", goodStream)
	zl := compress(t, "zlib", goodStream)
	fl := compress(t, "flate", goodStream)
	corrupt := append([]byte(nil), gz...)
	for i := 20; i < len(corrupt)-10; i += 7 {
		corrupt[i] ^= 0x5a
	}

	tests := []struct {
		name    string
		handler http.HandlerFunc
		mod     func(*Request)
		opts    []Option
		kind    ErrorKind // "" for success
		msg     []string  // substrings of the message
		check   func(t *testing.T, r *Record)
	}{
		{name: "reset mid-stream (connection closed, chunked)",
			handler: hijacked("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"+
				chunked(roleEvent+chatEvent("a")+chatEvent("b")), false),
			kind: KindResetMidstream, msg: []string{"connection broke after 3 events"},
			check: func(t *testing.T, r *Record) {
				if r.TextEvents != 2 || r.Text != "ab" || !r.HasTTFT {
					t.Errorf("lost what came before the reset: %d text events, %q", r.TextEvents, r.Text)
				}
			}},
		{name: "reset mid-stream (TCP RST)",
			handler: hijacked("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 100000\r\n\r\n"+roleEvent+chatEvent("a"), true),
			kind:    KindResetMidstream},
		{name: "body ends cleanly without an end marker",
			handler: func(w http.ResponseWriter, r *http.Request) { sseHeaders(w); writeFlush(w, roleEvent+chatEvent("a")) },
			kind:    KindResetMidstream, msg: []string{"without an end-of-stream marker"}},
		{name: "stall before headers past the idle timeout",
			handler: func(w http.ResponseWriter, r *http.Request) { stall(r, release) },
			mod:     func(q *Request) { q.IdleTimeout = 150 * time.Millisecond },
			kind:    KindTimeout, msg: []string{"idle timeout", "waiting for the response headers"}},
		{name: "stall before the first token past the total timeout",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, roleEvent)
				stall(r, release)
			},
			mod:  func(q *Request) { q.Timeout = 150 * time.Millisecond },
			kind: KindTimeout, msg: []string{"total timeout"},
			check: func(t *testing.T, r *Record) {
				if r.Events != 1 || r.HasTTFT {
					t.Errorf("events %d, HasTTFT %v", r.Events, r.HasTTFT)
				}
			}},
		{name: "stall after the first token past the idle timeout",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, roleEvent+chatEvent("a")+chatEvent("b"))
				stall(r, release)
			},
			// Long enough that the first events arrive in time on a loaded machine.
			mod:  func(q *Request) { q.IdleTimeout = 400 * time.Millisecond },
			kind: KindTimeoutMidstream, msg: []string{"idle timeout"},
			check: func(t *testing.T, r *Record) {
				if r.TextEvents != 2 || r.HasTPOT {
					t.Errorf("text events %d, HasTPOT %v", r.TextEvents, r.HasTPOT)
				}
			}},
		{name: "stall after the first token past the total timeout",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, roleEvent+chatEvent("a"))
				stall(r, release)
			},
			opts: []Option{WithTimeout(400 * time.Millisecond)},
			kind: KindTimeoutMidstream, msg: []string{"total timeout"}},
		{name: "wrong content type: the whole answer as JSON",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","model":"served-model","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`)
			},
			kind: KindNotStreamed, msg: []string{`"application/json"`, "ignored"},
			check: func(t *testing.T, r *Record) {
				if r.Text != "Hello!" || r.OutputTokens != 2 || r.InputTokens != 9 || r.TokenSource != TokensFromUsage || r.FinishReason != "stop" || r.Model != "served-model" {
					t.Errorf("not kept from the JSON answer: %+v", r)
				}
			}},
		{name: "401 with the key echoed in the OpenAI error body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(401)
				_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+testKey+`. You can find your API key at https://platform.example/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			},
			kind: "http_401", msg: []string{"HTTP 401", "Incorrect API key provided"}},
		{name: "404 model not found",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(404)
				_, _ = io.WriteString(w, `{"error":{"message":"The model 'nope' does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
			},
			kind: "http_404", msg: []string{"The model 'nope' does not exist"}},
		{name: "429 Anthropic error body with Retry-After",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "20")
				w.WriteHeader(429)
				_, _ = io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`)
			},
			mod:  func(q *Request) { q.URL = strings.Replace(q.URL, "/chat/completions", "/messages", 1) },
			kind: "http_429", msg: []string{"rate_limit_error: Number of request tokens", "Retry-After: 20"}},
		{name: "500 with a plain text body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(500)
				_, _ = io.WriteString(w, "upstream   exploded\n")
			},
			kind: KindHTTP5xx, msg: []string{"HTTP 500 Internal Server Error: upstream exploded"}},
		{name: "503 long body with the key and the header value, cut",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(503)
				_, _ = io.WriteString(w, `{"message":"overloaded; your headers were `+r.Header.Get("Authorization")+" and "+r.Header.Get("X-Custom")+" "+strings.Repeat("blah ", 2000)+`"}`)
			},
			mod:  func(q *Request) { q.Header.Set("X-Custom", "custom-secret-value-42") },
			kind: KindHTTP5xx, msg: []string{"HTTP 503", "overloaded", "…"},
			check: func(t *testing.T, r *Record) {
				if strings.Contains(r.Err.Message, "custom-secret-value-42") || strings.Contains(r.Err.Message, testKey) ||
					!strings.Contains(r.Err.Message, redact.Marker) || r.Status != 503 {
					t.Errorf("secret leaked, no %s marker, or status %d: %q", redact.Marker, r.Status, r.Err.Message)
				}
			}},
		{name: "gzip body", kind: "",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(gz)
			},
			check: func(t *testing.T, r *Record) {
				if r.Text != "abc" || r.Bytes != int64(len(goodStream)) {
					t.Errorf("text %q, %d bytes", r.Text, r.Bytes)
				}
			}},
		{name: "deflate body (zlib, as HTTP defines it)", kind: "",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				w.Header().Set("Content-Encoding", "deflate")
				_, _ = w.Write(zl)
			}},
		{name: "deflate body (raw DEFLATE, as some servers send it)", kind: "",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				w.Header().Set("Content-Encoding", "deflate")
				_, _ = w.Write(fl)
			}},
		{name: "corrupt gzip body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(corrupt)
			},
			kind: KindMalformed, msg: []string{`Content-Encoding "gzip"`}},
		{name: "unsupported content encoding",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				w.Header().Set("Content-Encoding", "br")
				writeFlush(w, goodStream)
			},
			kind: KindMalformed, msg: []string{`Content-Encoding "br"`, "not supported"}},
		{name: "1 MiB line under a 2 MiB cap", kind: "",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, longLine+finishEvent+doneEvent)
			},
			opts: []Option{WithMaxLineBytes(2 << 20)},
			check: func(t *testing.T, r *Record) {
				if r.Text != longText {
					t.Errorf("got %d bytes of text, want %d", len(r.Text), len(longText))
				}
			}},
		{name: "1 MiB line over a 64 KiB cap",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, roleEvent+chatEvent("a")+longLine+finishEvent+doneEvent)
			},
			opts: []Option{WithMaxLineBytes(64 << 10)},
			kind: KindMalformed, msg: []string{"line 5", "longer than the cap", "65536"},
			check: func(t *testing.T, r *Record) {
				if r.TextEvents != 1 || r.Text != "a" {
					t.Errorf("lost the events before the long line: %d, %q", r.TextEvents, r.Text)
				}
			}},
		{name: "error event inside the stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, roleEvent+chatEvent("a")+`data: {"error":{"message":"model crashed","type":"server_error"}}`+"\n\n")
			},
			kind: KindStreamError, msg: []string{"server_error: model crashed"}},
		{name: "Anthropic error event",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"c\",\"usage\":{\"input_tokens\":3}}}\n\n"+
					"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
			},
			mod:  func(q *Request) { q.URL = strings.Replace(q.URL, "/chat/completions", "/messages", 1) },
			kind: KindStreamError, msg: []string{"overloaded_error: Overloaded"}},
		{name: "malformed event",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, roleEvent+"data: {not json\n\n"+doneEvent)
			},
			kind: KindMalformed, msg: []string{"event 2", "invalid JSON"}},
		{name: "empty output",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				writeFlush(w, roleEvent+finishEvent+doneEvent)
			},
			kind: KindEmptyOutput},
		{name: "302 is not followed", kind: "http_302", msg: []string{"redirect to /elsewhere"},
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/elsewhere?key=sk-abcdefghijklmnop", http.StatusFound)
			}},
		{name: "307 is followed with the body", kind: "",
			handler: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/moved/v1/chat/completions" {
					http.Redirect(w, r, "/moved"+r.URL.Path, http.StatusTemporaryRedirect)
					return
				}
				body, _ := io.ReadAll(r.Body)
				if !bytes.Contains(body, []byte(`"stream":true`)) {
					w.WriteHeader(400)
					return
				}
				sseHeaders(w)
				writeFlush(w, goodStream)
			}},
		{name: "body that is not a JSON object",
			handler: func(w http.ResponseWriter, r *http.Request) { t.Error("the server was called") },
			mod:     func(q *Request) { q.Body = []byte(`["model"]`) },
			kind:    KindInvalidRequest, msg: []string{"not an object"}},
		{name: "body that is not JSON",
			handler: func(w http.ResponseWriter, r *http.Request) { t.Error("the server was called") },
			mod:     func(q *Request) { q.Body = []byte(`{model: x}`) },
			kind:    KindInvalidRequest, msg: []string{"not valid JSON"}},
		{name: "header value with a line break",
			handler: func(w http.ResponseWriter, r *http.Request) { t.Error("the server was called") },
			mod:     func(q *Request) { q.Header["X-Key"] = []string{"sk-abcdefghijklmnop\r\nEvil: 1"} },
			kind:    KindInvalidRequest, msg: []string{`"X-Key"`, "line break"}},
		{name: "URL that is not http",
			handler: func(w http.ResponseWriter, r *http.Request) { t.Error("the server was called") },
			mod:     func(q *Request) { q.URL = "ftp://example.invalid/v1/chat/completions?key=" + testKey },
			kind:    KindInvalidRequest, msg: []string{"ftp://example.invalid/v1/chat/completions", "not an absolute http"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			c := NewClient(tt.opts...)
			defer c.CloseIdleConnections()
			req := chatRequest(srv.URL)
			req.KeepText, req.KeepTimeline = true, true
			if tt.mod != nil {
				tt.mod(req)
			}
			rec := c.Do(context.Background(), req)
			checkInvariants(t, rec)
			assertNoSecret(t, rec)
			if tt.kind == "" {
				if rec.Err != nil {
					t.Fatalf("unexpected error: %v", rec.Err)
				}
			} else {
				if rec.Err == nil || rec.Err.Kind != tt.kind {
					t.Fatalf("got error %v, want kind %s", rec.Err, tt.kind)
				}
				for _, m := range tt.msg {
					if !strings.Contains(rec.Err.Message, m) {
						t.Errorf("message %q lacks %q", rec.Err.Message, m)
					}
				}
				if rec.E2E <= 0 && rec.Err.Kind != KindInvalidRequest {
					t.Errorf("E2E not set for a failed request: %v", rec.E2E)
				}
			}
			if tt.check != nil {
				tt.check(t, rec)
			}
		})
	}
}

// assertNoSecret fails if the test key appears anywhere in the record.
func assertNoSecret(t *testing.T, r *Record) {
	t.Helper()
	b, _ := json.Marshal(r)
	if bytes.Contains(b, []byte(testKey)) || bytes.Contains(b, []byte(testKey[:12])) {
		t.Errorf("the API key appears in the record: %s", b)
	}
	if r.Err != nil && strings.Contains(r.Err.Message, "sk-abcdefghijklmnop") {
		t.Errorf("a key-shaped string appears in the message: %q", r.Err.Message)
	}
}

func TestDoConnectionRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	req := chatRequest("http://" + addr)
	req.URL += "?api-key=" + testKey
	rec := NewClient().Do(context.Background(), req)
	if rec.Err == nil || rec.Err.Kind != KindConnect || !strings.Contains(rec.Err.Message, "refused") {
		t.Fatalf("got %v, want connect / refused", rec.Err)
	}
	if rec.Status != 0 || rec.E2E <= 0 {
		t.Errorf("status %d, E2E %v", rec.Status, rec.E2E)
	}
	assertNoSecret(t, rec)
}

func TestDoCanceledAndDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	wrote := make(chan struct{}, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		writeFlush(w, roleEvent+chatEvent("a"))
		wrote <- struct{}{}
		stall(r, release)
	}))
	defer srv.Close()
	c := NewClient()
	defer c.CloseIdleConnections()

	ctx, cancel := context.WithCancel(context.Background())
	canceled := make(chan struct{})
	go func() { defer close(canceled); <-wrote; cancel() }()
	rec := c.Do(ctx, chatRequest(srv.URL))
	<-canceled
	if rec.Err == nil || rec.Err.Kind != KindCanceled {
		t.Fatalf("canceled context: got %v", rec.Err)
	}

	ctx, cancel2 := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel2()
	rec = c.Do(ctx, chatRequest(srv.URL))
	if rec.Err == nil || (rec.Err.Kind != KindTimeoutMidstream && rec.Err.Kind != KindTimeout) || !strings.Contains(rec.Err.Message, "caller's deadline") {
		t.Fatalf("caller's deadline: got %v", rec.Err)
	}
}

// ackTransport wraps a transport so that the test server can wait until the
// client has read every byte it wrote: each read's running total is sent on
// the channel.
type ackTransport struct {
	rt   http.RoundTripper
	read chan int64
}

func (a *ackTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.rt.RoundTrip(r)
	if err == nil {
		resp.Body = &ackBody{ReadCloser: resp.Body, read: a.read}
	}
	return resp, err
}

type ackBody struct {
	io.ReadCloser
	read  chan int64
	total int64
}

func (b *ackBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.total += int64(n)
		b.read <- b.total
	}
	return n, err
}

// fakeClock is a clock the test moves; every call also moves it on by 1 ns,
// so that two calls never return the same time.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(time.Nanosecond)
	return f.now
}

func (f *fakeClock) Set(t time.Time) {
	f.mu.Lock()
	f.now = t
	f.mu.Unlock()
}

// The server writes event k+1 only after the client has read event k; so
// every event completes in its own read, and the record must show the events
// in order, one ITL gap per pair of text events, all positive (the clock moves
// between reads), and the ground truth (the server's write time) no later than
// the read time.
func TestDoLockstepTiming(t *testing.T) {
	t.Parallel()
	const n = 20
	read := make(chan int64, 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		var written int64
		send := func(s string) {
			writeFlush(w, s)
			written += int64(len(s))
			for {
				select {
				case total := <-read:
					if total >= written {
						return
					}
				case <-r.Context().Done():
					return
				}
			}
		}
		send(roleEvent)
		for i := 0; i < n; i++ {
			ev := strings.Replace(chatEvent(fmt.Sprint(i%10)), "{", fmt.Sprintf(`{"x_mock_ts_ns":%d,`, time.Now().UnixNano()), 1)
			send(ev)
		}
		send(finishEvent)
		send(doneEvent)
	}))
	defer srv.Close()
	tr := &ackTransport{rt: NewTransport(), read: read}
	c := NewClient(WithTransport(tr))
	defer c.CloseIdleConnections()
	req := chatRequest(srv.URL)
	req.KeepTimeline, req.KeepText = true, true
	rec := c.Do(context.Background(), req)
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	checkInvariants(t, rec)
	if rec.TextEvents != n || len(rec.ITL) != n-1 || rec.Text != "01234567890123456789" {
		t.Fatalf("%d text events, %d gaps, text %q", rec.TextEvents, len(rec.ITL), rec.Text)
	}
	var sum time.Duration
	for i, g := range rec.ITL {
		if g < 0 {
			t.Errorf("gap %d is negative: %v", i, g)
		}
		sum += g
	}
	for i := 1; i < len(rec.Timeline); i++ {
		if rec.Timeline[i].At < rec.Timeline[i-1].At {
			t.Errorf("event %d read before event %d", i, i-1)
		}
	}
	if sum > rec.E2E-rec.TTFT {
		t.Errorf("ITL sum %v > E2E − TTFT %v", sum, rec.E2E-rec.TTFT)
	}
	// Ground truth: read time − write time, with a generous tolerance (the
	// wall clock may be slewed; reading after writing is what matters).
	var worst time.Duration
	for _, e := range rec.Timeline {
		if e.ServerNS == 0 {
			continue
		}
		lag := rec.Start.Add(e.At).Sub(time.Unix(0, e.ServerNS))
		if lag < -50*time.Millisecond || lag > 5*time.Second {
			t.Errorf("read %v after the server's write: not plausible", lag)
		}
		worst = max(worst, lag)
	}
	t.Logf("worst read − write lag over %d events: %v", n, worst)

	// The same lockstep with a clock that moves 1 ns per call: every gap is
	// now strictly positive, whatever the machine's clock resolution.
	clk := &fakeClock{now: time.Unix(1000, 0)}
	c2 := NewClient(WithTransport(tr), withClock(clk.Now))
	defer c2.CloseIdleConnections()
	rec = c2.Do(context.Background(), req)
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	for i, g := range rec.ITL {
		if g <= 0 {
			t.Errorf("gap %d = %v with a strictly increasing clock and one read per event", i, g)
		}
	}
}

// scriptedTransport answers every request with a 200 text/event-stream whose
// body returns the given chunks, one per read; before returning chunk i it
// sets the fake clock to at[i].
type scriptedTransport struct {
	clk    *fakeClock
	chunks []string
	at     []time.Time
	header http.Header // added to the response's
}

func (s *scriptedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {"text/event-stream"}}
	for k, v := range s.header {
		h[k] = v
	}
	return &http.Response{
		StatusCode: 200,
		Header:     h,
		Body:       &scriptedBody{s: s},
		Request:    r,
	}, nil
}

type scriptedBody struct {
	s *scriptedTransport
	i int
}

func (b *scriptedBody) Read(p []byte) (int, error) {
	if b.i >= len(b.s.chunks) {
		return 0, io.EOF
	}
	b.s.clk.Set(b.s.at[b.i])
	n := copy(p, b.s.chunks[b.i])
	b.i++
	return n, nil
}

func (b *scriptedBody) Close() error { return nil }

// An event's time is the time of the read that completed it: events completed
// by one read share its time, even though they are decoded one after the
// other (the clock moves 1 ns at every call, so a time taken at decode would
// differ), and an event cut across two reads gets the second read's time.
// TTFT, TTFTAnswer, ITL, E2E and TPOT follow exactly from those times.
func TestDoStampsAtRead(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(5000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	reasoning := `data: {"choices":[{"index":0,"delta":{"reasoning_content":"hm"}}]}` + "\n\n"
	usage := `data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":5}}` + "\n\n"
	a, b := chatEvent("a"), chatEvent("b")
	chunks := []string{
		roleEvent + reasoning,            // read at 100 ms: role, reasoning
		chatEvent("x") + a[:10],          // read at 130 ms: answer "x", start of "a"
		a[10:] + b + finishEvent + usage, // read at 190 ms: "a", "b", finish, usage
		doneEvent,                        // read at 200 ms
	}
	clk := &fakeClock{now: t0}
	tr := &scriptedTransport{clk: clk, chunks: chunks, at: []time.Time{ms(100), ms(130), ms(190), ms(200)}}
	c := NewClient(WithTransport(tr), withClock(clk.Now))
	req := chatRequest("http://127.0.0.1:9")
	req.KeepTimeline = true
	rec := c.Do(context.Background(), req)
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	// Start is the first call of the clock (t0 + 1 ns); the stamp of a read is
	// the first call after the read set the clock (its time + 1 ns).
	at := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var got []time.Duration
	for _, e := range rec.Timeline {
		got = append(got, e.At)
	}
	want := []time.Duration{at(100), at(100), at(130), at(190), at(190), at(190), at(190), at(200)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("event times\n got %v\nwant %v", got, want)
	}
	if rec.TTFT != at(100) || rec.TTFTAnswer != at(130) || !rec.HasTTFTAnswer {
		t.Errorf("TTFT %v, TTFTAnswer %v", rec.TTFT, rec.TTFTAnswer)
	}
	if fmt.Sprint(rec.ITL) != fmt.Sprint([]time.Duration{30 * time.Millisecond, 60 * time.Millisecond, 0}) {
		t.Errorf("ITL %v", rec.ITL)
	}
	if rec.E2E != at(200) || rec.OutputTokens != 5 || rec.TPOT != (at(200)-at(100))/4 {
		t.Errorf("E2E %v, output tokens %d, TPOT %v", rec.E2E, rec.OutputTokens, rec.TPOT)
	}
}

// With a gzip body, events are stamped with the time of the read of the
// compressed bytes from the connection that completed them (the server
// flushes its compressor after every event, as a streaming server must).
func TestDoStampsGzipAtConnectionRead(t *testing.T) {
	t.Parallel()
	events := []string{roleEvent, chatEvent("a"), chatEvent("b"), finishEvent, doneEvent}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	var chunks []string
	var at []time.Time
	t0 := time.Unix(7000, 0)
	for i, ev := range events {
		_, _ = io.WriteString(zw, ev)
		if err := zw.Flush(); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, buf.String())
		buf.Reset()
		at = append(at, t0.Add(time.Duration(10*(i+1))*time.Millisecond))
	}
	clk := &fakeClock{now: t0}
	tr := &scriptedTransport{clk: clk, chunks: chunks, at: at, header: http.Header{"Content-Encoding": {"gzip"}}}
	req := chatRequest("http://127.0.0.1:9")
	req.KeepTimeline, req.KeepText = true, true
	rec := NewClient(WithTransport(tr), withClock(clk.Now)).Do(context.Background(), req)
	if rec.Err != nil || rec.Text != "ab" {
		t.Fatalf("%v, text %q", rec.Err, rec.Text)
	}
	var got []time.Duration
	for _, e := range rec.Timeline {
		got = append(got, e.At)
	}
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond, 40 * time.Millisecond, 50 * time.Millisecond}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("event times\n got %v\nwant %v", got, want)
	}
}

// After many requests — successful, failed, timed out and canceled — no
// goroutine is left behind.
func TestDoLeavesNoGoroutines(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("mode") {
		case "ok":
			sseHeaders(w)
			writeFlush(w, goodStream)
		case "stall":
			sseHeaders(w)
			writeFlush(w, roleEvent+chatEvent("a"))
			stall(r, release)
		case "reset":
			hijacked("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"+chunked(roleEvent), false)(w, r)
		case "500":
			w.WriteHeader(500)
		}
	}))
	before := runtime.NumGoroutine()
	c := NewClient()
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		mode := []string{"ok", "stall", "reset", "500"}[i%4]
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req := chatRequest(srv.URL)
			req.URL += "?mode=" + mode
			if mode == "stall" {
				req.IdleTimeout = 100 * time.Millisecond
			}
			if i%8 == 1 {
				wg.Add(1)
				go func() { defer wg.Done(); time.Sleep(20 * time.Millisecond); cancel() }()
			}
			rec := c.Do(ctx, req)
			if (mode == "ok") != (rec.Err == nil) {
				t.Errorf("mode %s: %v", mode, rec.Err)
			}
		}()
	}
	wg.Wait()
	close(release)
	c.CloseIdleConnections()
	srv.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// Streams over HTTP/2 with TLS (as with hosted APIs) are read and timed the
// same way, and a stream reset by the server (RST_STREAM) is reset_midstream.
func TestDoHTTP2(t *testing.T) {
	t.Parallel()
	var protos sync.Map
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos.Store(r.Proto, true)
		sseHeaders(w)
		if r.URL.Query().Get("reset") != "" {
			writeFlush(w, roleEvent+chatEvent("a"))
			panic(http.ErrAbortHandler) // the server resets the stream
		}
		for _, part := range strings.SplitAfter(goodStream, "\n\n") {
			writeFlush(w, part)
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	tr := NewTransport()
	tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	c := NewClient(WithTransport(tr))
	defer c.CloseIdleConnections()

	req := chatRequest(srv.URL)
	req.KeepText = true
	rec := c.Do(context.Background(), req)
	if rec.Err != nil || rec.Text != "abc" || rec.TextEvents != 3 {
		t.Fatalf("HTTP/2 stream: %v, text %q", rec.Err, rec.Text)
	}
	req.URL += "?reset=1"
	rec = c.Do(context.Background(), req)
	if rec.Err == nil || rec.Err.Kind != KindResetMidstream || rec.Text != "a" {
		t.Fatalf("HTTP/2 reset: %v, text %q", rec.Err, rec.Text)
	}
	if _, ok := protos.Load("HTTP/2.0"); !ok {
		t.Errorf("the requests did not use HTTP/2")
	}
}
