package mockllm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// cancelAfter is a context whose Err turns to Canceled after a number of
// calls, so a test sees work stop part-way with no clock.
type cancelAfter struct {
	context.Context
	left atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// A request whose context ends while its huge prompt is being tokenized gets
// the context's error back, and the tokenizer stops part-way (a client that
// left, or a server shutting down, no longer keeps a core busy).
func TestPromptKeysStopWhenCanceled(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"cl100k_base", "o200k_base"} {
		c, err := newPromptCounter(spec)
		if err != nil {
			t.Fatal(err)
		}
		req := &genRequest{Texts: []string{"a short system prompt", strings.Repeat("x", 1<<20)}}
		ctx := &cancelAfter{Context: context.Background()}
		ctx.left.Store(3)
		keys, err := c.keysContext(ctx, req)
		if !errors.Is(err, context.Canceled) || keys != nil {
			t.Errorf("%s: got %d keys, %v; want context.Canceled", spec, len(keys), err)
		}
		if ctx.left.Load() >= 0 {
			t.Errorf("%s: tokenizing never saw the context end", spec)
		}

		done, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := c.keysContext(done, req); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: an already canceled request: %v", spec, err)
		}
		short := &genRequest{Texts: []string{"hello world"}}
		if keys, err := c.keysContext(context.Background(), short); err != nil || len(keys) != 2 {
			t.Errorf("%s: %q gave %d keys, %v; want 2", spec, "hello world", len(keys), err)
		}
	}
}

// TestCloseStopsTokenizing: a server closing while a request's huge prompt is
// being tokenized (what SIGTERM does to `mock`) stops the tokenizing, so
// Close returns: before, the handler kept a core busy until the prompt was
// done, and Close waited for it. The test's own timeout is the only bound.
func TestCloseStopsTokenizing(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Tokenizer = "cl100k_base"
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	body := `{"model":"m","stream":true,"max_tokens":2,"messages":[{"role":"user","content":"` + strings.Repeat("x", 64<<20) + `"}]}`
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	for s.counters.requests.Load() == 0 { // the handler has started (the body is read before tokenizing)
		runtime.Gosched()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if code := <-answered; code == http.StatusOK {
		t.Errorf("the request was answered 200 after the server closed mid-tokenizing")
	}
}
