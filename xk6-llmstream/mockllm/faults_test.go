package mockllm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// faultRate is the rate of every fault in the fault tests; faultRequests the
// number of requests. Counts are checked within ±4.5σ of the binomial mean:
// with a fixed seed the outcome is a function of the seed alone, so the test
// cannot flake, and ±4.5σ means a correct server passes for any seed.
const (
	faultRate     = 0.05
	faultRequests = 2000
)

// fastFaultyConfig is an instant server injecting every fault at faultRate.
func fastFaultyConfig() Config {
	return Config{Seed: 11, Default: ModelConfig{
		OutputTokens: FixedCount(8),
		Faults: Faults{
			HTTP429: faultRate, HTTP5xx: faultRate, Disconnect: faultRate,
			Malformed: faultRate, ErrorEvent: faultRate, NotStreamed: faultRate,
		},
	}}
}

// faultEndpoints cycles requests over the three dialects, so that every fault
// is seen in every dialect's shape.
var faultEndpoints = []struct{ path, body string }{
	{"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`},
	{"/v1/completions", `{"model":"m","stream":true,"prompt":"hi"}`},
	{"/v1/messages", `{"model":"m","stream":true,"max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`},
}

// classifyWire names what a client saw, from the wire alone.
func classifyWire(r result) string {
	switch {
	case r.status == 0:
		return "no response: " + fmt.Sprint(r.readErr)
	case r.status == http.StatusTooManyRequests:
		if r.header.Get("Retry-After") == "" {
			return "429 without Retry-After"
		}
		return string(FaultHTTP429)
	case r.status >= 500:
		return string(FaultHTTP5xx)
	case r.status != 200:
		return fmt.Sprintf("status %d", r.status)
	case r.header.Get("Content-Type") == "application/json":
		if !json.Valid(r.body) {
			return "invalid JSON answer"
		}
		return string(FaultNotStreamed)
	case r.readErr != nil:
		return string(FaultDisconnect)
	}
	evs := parseSSE(r.body)
	for _, e := range evs {
		if e.data == "[DONE]" {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(e.data), &m) != nil {
			return string(FaultMalformed)
		}
		if _, ok := m["error"]; ok || e.name == "error" {
			return string(FaultErrorEvent)
		}
	}
	last := evs[len(evs)-1]
	if last.data != "[DONE]" && last.name != "message_stop" {
		return "stream ended without its end marker"
	}
	return "ok"
}

// checkBinomial fails when count is farther than 4.5σ from n·p.
func checkBinomial(t *testing.T, what string, count, n int, p float64) {
	t.Helper()
	mean := float64(n) * p
	sigma := math.Sqrt(float64(n) * p * (1 - p))
	if math.Abs(float64(count)-mean) > 4.5*sigma {
		t.Errorf("%s: %d of %d, want %.0f ± %.0f (4.5σ)", what, count, n, mean, 4.5*sigma)
	}
}

// runConcurrently calls do(i) for i in [0, n) from 8 goroutines.
func runConcurrently(n int, do func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				do(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

func TestFaultsFireAtTheirRatesOnTheWire(t *testing.T) {
	t.Parallel()
	srv, url := startServer(t, fastFaultyConfig())
	var mu sync.Mutex
	seen := map[string]int{}
	runConcurrently(faultRequests, func(i int) {
		ep := faultEndpoints[i%len(faultEndpoints)]
		kind := classifyWire(post(t, url+ep.path, ep.body))
		mu.Lock()
		seen[kind]++
		mu.Unlock()
	})
	st := srv.Stats()
	total := 0
	for _, f := range drawnFaults {
		checkBinomial(t, string(f), seen[string(f)], faultRequests, faultRate)
		if int64(seen[string(f)]) != st.Faults[f] {
			t.Errorf("%s: the client saw %d, the server counted %d", f, seen[string(f)], st.Faults[f])
		}
		total += seen[string(f)]
	}
	if total+seen["ok"] != faultRequests {
		t.Errorf("outcomes %v: %d faults + %d ok ≠ %d requests", seen, total, seen["ok"], faultRequests)
	}
	t.Logf("outcomes: %v", seen)
}

func TestFaultsAreDrawnPerRequestFromTheSeed(t *testing.T) {
	t.Parallel()
	// Which requests fail depends on the seed and the arrival number only.
	cfg := fastFaultyConfig()
	f := cfg.Default.Faults
	var a, b, c []Fault
	for seq := uint64(0); seq < 300; seq++ {
		fa, _ := f.draw(requestRand(cfg.Seed, seq, purposeFault))
		fb, _ := f.draw(requestRand(cfg.Seed, seq, purposeFault))
		fc, _ := f.draw(requestRand(cfg.Seed+1, seq, purposeFault))
		a, b, c = append(a, fa), append(b, fb), append(c, fc)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("the same seed and sequence number drew different faults")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Error("seeds 11 and 12 drew the same 300 faults")
	}
}

func TestMidstreamFaultsStrikeAfterText(t *testing.T) {
	t.Parallel()
	for _, f := range []Fault{FaultDisconnect, FaultMalformed, FaultErrorEvent} {
		cfg := Config{Default: ModelConfig{OutputTokens: FixedCount(6)}}
		switch f {
		case FaultDisconnect:
			cfg.Default.Faults.Disconnect = 1
		case FaultMalformed:
			cfg.Default.Faults.Malformed = 1
		case FaultErrorEvent:
			cfg.Default.Faults.ErrorEvent = 1
		}
		_, url := startServer(t, cfg)
		for _, ep := range faultEndpoints {
			for i := 0; i < 5; i++ {
				r := post(t, url+ep.path, ep.body)
				if got := classifyWire(r); got != string(f) {
					t.Fatalf("%s %s: classified %s", f, ep.path, got)
				}
				// At least one text event came before the fault.
				if !strings.Contains(string(r.body), `"The`) {
					t.Errorf("%s %s: no text before the fault:\n%s", f, ep.path, r.body)
				}
			}
		}
	}
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	const key = "sk-mock-SECRET-4242"
	srv, url := startServer(t, Config{APIKey: key})
	body := chatBody("m", 3, "")
	for _, tc := range []struct {
		name   string
		header []string
		path   string
		want   int
	}{
		{"missing", nil, "/v1/chat/completions", 401},
		{"wrong bearer", []string{"Authorization", "Bearer sk-mock-SECRET-4243"}, "/v1/chat/completions", 401},
		{"wrong x-api-key", []string{"x-api-key", key + "x"}, "/v1/messages", 401},
		{"bearer", []string{"Authorization", "Bearer " + key}, "/v1/chat/completions", 200},
		{"x-api-key", []string{"x-api-key", key}, "/v1/messages", 200},
		{"models without key", nil, "/v1/models", 401},
	} {
		var r result
		if tc.path == "/v1/models" {
			resp, err := http.Get(url + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			r.status = resp.StatusCode
		} else {
			b := body
			if tc.path == "/v1/messages" {
				b = `{"model":"m","stream":true,"max_tokens":3,"messages":[{"role":"user","content":"hi"}]}`
			}
			r = post(t, url+tc.path, b, tc.header...)
		}
		if r.status != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, r.status, tc.want)
		}
		if strings.Contains(string(r.body), "SECRET") {
			t.Errorf("%s: the answer quotes the key: %s", tc.name, r.body)
		}
	}
	if n := srv.Stats().Unauthorized; n != 4 {
		t.Errorf("Stats.Unauthorized = %d, want 4", n)
	}
}

func TestQueueLimitAnswers429(t *testing.T) {
	t.Parallel()
	// One slot held by a long stream, two waiting: the next two are refused
	// at once with Retry-After. Counted from the server's own state, not
	// from timing.
	cfg := Config{Slots: 1, QueueLimit: 2, RetryAfter: 2500 * time.Millisecond, Default: ModelConfig{Prefill: Prefill{Base: time.Hour}}}
	srv, url := startServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			postCtx(t, ctx, http.DefaultClient, url+"/v1/chat/completions", chatBody("m", 3, ""))
		}()
	}
	waitFor(t, "1 active and 2 waiting", func() bool {
		st := srv.Stats()
		return st.Active == 1 && st.Waiting == 2
	})
	for i := 0; i < 2; i++ {
		r := post(t, url+"/v1/messages", `{"model":"m","stream":true,"max_tokens":3,"messages":[]}`)
		if r.status != 429 || r.header.Get("Retry-After") != "3" {
			t.Errorf("beyond the queue: status %d, Retry-After %q; want 429, 3", r.status, r.header.Get("Retry-After"))
		}
		var e struct {
			Type  string
			Error struct{ Type string }
		}
		if json.Unmarshal(r.body, &e) != nil || e.Type != "error" || e.Error.Type != "rate_limit_error" {
			t.Errorf("Anthropic 429 body: %s", r.body)
		}
	}
	st := srv.Stats()
	if st.QueueFull != 2 || st.Faults[FaultQueueFull] != 2 {
		t.Errorf("QueueFull %d, Faults %v; want 2", st.QueueFull, st.Faults)
	}
	cancel()
	wg.Wait()
	waitFor(t, "the queue to empty", func() bool {
		st := srv.Stats()
		return st.Active == 0 && st.Waiting == 0
	})
}
