package helper

import (
	"github.com/llmstream/xk6-llmstream/internal/redact"
	"net/url"
	"strings"
	"testing"
)

// FuzzParseStreamRequest: any body is either refused with a 4xx and a message
// that quotes no header value, or yields a request the engine can take.
func FuzzParseStreamRequest(f *testing.F) {
	for _, s := range []string{
		`{"url":"http://127.0.0.1:1/v1/chat/completions","api":"openai-chat","body":{"model":"m"}}`,
		`{"url":"https://api.example/v1/messages","api":"anthropic-messages","headers":{"x-api-key":"sk-abcdefgh12345678"},"body":{},"timeout_ms":1.5}`,
		`{"url":"http://h/x","body":{},"headers":{"A":"b\r\nc"}}`,
		`{"url":"http://h/x","body":[1]}`, `{"url":5}`, `[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	cfg := newConfig([]Option{WithStreamer(okStreamer())})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, rerr := parseStreamRequest(data, &cfg)
		if rerr != nil {
			if p != nil || rerr.status < 400 || rerr.status > 499 || rerr.kind == "" || rerr.msg == "" {
				t.Fatalf("bad refusal %+v for %q", rerr, data)
			}
			return
		}
		u, err := url.Parse(p.req.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("accepted URL %q", p.req.URL)
		}
		if len(p.req.Body) == 0 || p.req.Body[0] != '{' {
			t.Fatalf("accepted body %q", p.req.Body)
		}
		if p.req.Timeout <= 0 || p.req.IdleTimeout <= 0 {
			t.Fatalf("accepted timeouts %v %v", p.req.Timeout, p.req.IdleTimeout)
		}
		for name, vs := range p.req.Header {
			if hopHeaders[name] || !validHeaderName(name) {
				t.Fatalf("forwarded header %q", name)
			}
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("forwarded header value with a line break: %q", v)
				}
				if len(strings.TrimSpace(v)) >= redact.MinSecret && !redact.Harmless(name) && !strings.Contains(v, "REDACTED") &&
					strings.Contains(p.redactor.String("x"+v+"x"), strings.TrimSpace(v)) {
					t.Fatalf("redactor keeps the value of %s", name)
				}
			}
		}
	})
}

// FuzzAllowList: parsing never panics, and loopback is always allowed while
// nothing but http(s) ever is.
func FuzzAllowList(f *testing.F) {
	for _, s := range []string{"api.openai.com", "*.azure.com,10.0.0.0/8", "[::1]:80", "h:0", "*", "a..b"} {
		f.Add(s, "https://api.openai.com:443/v1")
	}
	f.Fuzz(func(t *testing.T, entries, raw string) {
		a, err := ParseAllowList(entries)
		if err != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		allowed := a.Allows(u)
		if allowed && u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("Allows(%q) with %q", raw, entries)
		}
		lo := &url.URL{Scheme: "http", Host: "127.0.0.1:8000", Path: "/v1"}
		if !a.Allows(lo) {
			t.Fatalf("loopback refused with %q", entries)
		}
	})
}
