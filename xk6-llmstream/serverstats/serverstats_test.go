package serverstats

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// TestParseServers: SGLang's and llama.cpp's names are read, label sets add
// up, vLLM's histogram is found, and a page without any known signal leaves
// them nil.
func TestParseServers(t *testing.T) {
	t.Parallel()
	pages := map[string]string{
		"sglang":   "# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{model=\"a\"} 3\nsglang:num_running_reqs{model=\"b\"} 4\n# TYPE sglang:num_queue_reqs gauge\nsglang:num_queue_reqs 5\n# TYPE sglang:token_usage gauge\nsglang:token_usage 0.5\n",
		"llamacpp": "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 1\n# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 2\n",
		"vllm":     "# TYPE vllm:time_to_first_token_seconds histogram\nvllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} 4\nvllm:time_to_first_token_seconds_sum 2\nvllm:time_to_first_token_seconds_count 4\n",
		"none":     "# TYPE other gauge\nother 1\n",
	}
	parse := func(name string) Sample {
		s, err := Parse(strings.NewReader(pages[name]))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return s
	}
	if s := parse("sglang"); s.Running == nil || *s.Running != 7 || *s.Waiting != 5 || *s.Cache != 0.5 {
		t.Errorf("sglang: %+v", s)
	}
	if s := parse("llamacpp"); s.Running == nil || *s.Running != 1 || *s.Waiting != 2 || s.Cache != nil {
		t.Errorf("llama.cpp: %+v", s)
	}
	if s := parse("vllm"); !s.HasTTFT || s.TTFTSum != 2 || s.TTFTCount != 4 || s.Running != nil {
		t.Errorf("vllm: %+v", s)
	}
	if s := parse("none"); s.Running != nil || s.Waiting != nil || s.Cache != nil || s.HasTTFT {
		t.Errorf("none: %+v", s)
	}
	if _, err := Parse(strings.NewReader("vllm:num_requests_running{ 3\n")); err == nil {
		t.Error("a malformed line of a known metric parsed")
	}
	// Only the known metrics' lines are parsed (the bound on a page's cost).
	if s, err := Parse(strings.NewReader("not a metric line {\nvllm:num_requests_waiting 2\n")); err != nil || *s.Waiting != 2 {
		t.Errorf("a malformed line of another metric: %+v, %v", s, err)
	}
}

// TestCheckURL: only absolute http(s) URLs with a host and no credentials
// pass; each error names the flag and does not repeat the URL.
func TestCheckURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"http://127.0.0.1:8000/metrics", "https://vllm.internal:8000/metrics"} {
		if err := CheckURL("--scrape", ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for raw, want := range map[string]string{
		"ftp://127.0.0.1/metrics":              `scheme "ftp"`,
		"127.0.0.1:8000/metrics":               "not a URL",
		"localhost:8000/metrics":               `scheme "localhost"`,
		"http:///metrics":                      "no host",
		"http://user:s3cret@127.0.0.1/metrics": "user info",
		"http://127.0.0.1:8000/%zz":            "not a URL",
		"mock":                                 `scheme ""`,
		"http://127.0.0.1/metrics?key=s3cret":  "query",
	} {
		err := CheckURL("--scrape", raw)
		if err == nil || !strings.HasPrefix(err.Error(), "--scrape: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming --scrape and %q", raw, err, want)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: the error repeats the credentials: %v", raw, err)
		}
	}
}

// TestSamplerMock: a Sampler of the mock's /metrics sees its queue while 3
// streams hold its 2 slots, and nothing once the mock is gone.
func TestSamplerMock(t *testing.T) {
	t.Parallel()
	m, err := mockllm.New(mockllm.Config{Slots: 2, Default: mockllm.ModelConfig{ITL: mockllm.ITL{Base: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m)
	defer ts.Close()
	defer m.Close()
	s, err := StartSampler(ts.URL+"/metrics", 2*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			body := `{"stream":true,"max_tokens":50,"messages":[{"role":"user","content":"hi"}]}`
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/v1/chat/completions", strings.NewReader(body))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body) // until the cancel
				resp.Body.Close()
			}
		})
	}
	waitFor(t, func() bool {
		l := s.Latest()
		return l != nil && l.Waiting != nil && *l.Waiting == 1 && *l.Running == 2
	})
	cancel()
	wg.Wait()
	m.Close()
	ts.Close()
	waitFor(t, func() bool { return s.Latest() == nil }) // a failed scrape clears it
	st := s.Stop()
	if st.Scrapes < 1 || st.Errors < 1 || st.LastError == "" {
		t.Errorf("stats %+v: want scrapes and at least one error", st)
	}
	if n := s.Stop(); n != st {
		t.Errorf("a second Stop changed the stats: %+v, %+v", n, st)
	}
}

// TestSamplerCadence: the Sampler scrapes at once and then every interval,
// and stops scraping at Stop.
func TestSamplerCadence(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "vllm:num_requests_waiting %d\n", n.Add(1))
	}))
	defer ts.Close()
	s, err := StartSampler(ts.URL, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { l := s.Latest(); return l != nil && *l.Waiting >= 3 })
	st := s.Stop()
	// After Stop no scrape starts; the server may still see the one Stop
	// canceled in flight (sent, not counted), so it counts at most one more.
	time.Sleep(20 * time.Millisecond) // 20 intervals: a Sampler still running would scrape about 20 more times
	if served := n.Load(); st.Scrapes < 3 || served < st.Scrapes || served > st.Scrapes+st.Errors+1 {
		t.Errorf("%d scrapes counted (%d errors), %d served by 20 intervals after Stop", st.Scrapes, st.Errors, served)
	}
	if _, err := StartSampler("ftp://127.0.0.1/", 0); err == nil {
		t.Error("StartSampler took an ftp URL")
	}
	var none *Sampler
	if none.Latest() != nil {
		t.Error("a nil Sampler holds a sample")
	}
}

// waitFor polls cond until it holds (the test's deadline bounds it).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}
