package calibrate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A 307 from the probed endpoint to another origin (another port of
// 127.0.0.1: another server, maybe someone else's) is followed without the
// key, whatever the dialect's key header: the probe streams with the
// helper's client, which drops credentials when a redirect leaves the first
// origin. The other origin then answers as the real endpoint would, so the
// probe succeeds; only the headers it received are checked.
func TestProbeRedirectCarriesNoKeyToAnotherOrigin(t *testing.T) {
	target := probeMock(t, 0, time.Millisecond, 8)
	var mu sync.Mutex
	var seen []http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		// Forward to the mock with the key, as a proxy of the same API would.
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		req.Header.Set("Authorization", "Bearer "+probeKey)
		req.Header.Set("x-api-key", probeKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			w.(http.Flusher).Flush()
			if err != nil {
				return
			}
		}
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()
	for _, api := range []string{"openai-chat", "anthropic-messages"} {
		_, err := Probe(context.Background(), ProbeConfig{BaseURL: first.URL, APIKey: probeKey, Model: "m", API: api,
			MaxTokens: 8, Requests: 1, Prompt: ProbePrompt})
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("the other origin got %d requests, want 2", len(seen))
	}
	for _, h := range seen {
		for name, vs := range h {
			if strings.Contains(strings.Join(vs, " "), probeKey) {
				t.Errorf("the other origin received the key in %s", name)
			}
		}
	}
}

// An endpoint's error text with terminal escapes comes back in the probe's
// error escaped (escape.Line), never raw.
func TestProbeErrorEscapesUpstreamText(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte("\x1b]0;owned\x07\x1b[2Jbad\x9b31m"))
	}))
	defer srv.Close()
	_, err := Probe(context.Background(), ProbeConfig{BaseURL: srv.URL, Requests: 1, MaxTokens: 8, Prompt: ProbePrompt})
	if err == nil || !strings.Contains(err.Error(), `\x1b]0;owned\x07\x1b[2Jbad\x9b31m`) || strings.ContainsAny(err.Error(), "\x1b\x07") || strings.Contains(err.Error(), "\x9b") {
		t.Errorf("err = %q", err)
	}
}
