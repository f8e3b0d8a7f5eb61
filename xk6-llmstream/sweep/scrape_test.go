package sweep

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// TestScrapeMock: the scraper reads the mock's vLLM /metrics while 3
// streams hold its 2 slots: peak running 2, waiting 1, cache full, the
// server's TTFT counted; told the mock's URL the way the runner tells it.
func TestScrapeMock(t *testing.T) {
	t.Parallel()
	srv, err := mockllm.New(mockllm.Config{Slots: 2, Default: mockllm.ModelConfig{ITL: mockllm.ITL{Base: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()

	sc := Scrape{URL: ScrapeMock, Interval: 2 * time.Millisecond}.start(context.Background(), time.Now())
	sc.mockStarted(ts.URL + "/")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			body := `{"model":"mock","stream":true,"max_tokens":50,"messages":[{"role":"user","content":"hi"}]}`
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/v1/chat/completions", strings.NewReader(body))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body) // until the cancel
				resp.Body.Close()
			}
		})
	}
	for srv.Stats().Waiting < 1 || srv.Stats().Active < 2 {
		time.Sleep(time.Millisecond)
	}
	// Let the scraper see the full server: wait for a scrape after it filled.
	for n := scrapes(sc); scrapes(sc) < n+2; {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	got := sc.stop()
	if got.URL != ts.URL+"/metrics" || got.Scrapes < 2 || got.Errors != 0 {
		t.Fatalf("scrapes: %+v", got)
	}
	check := func(name string, s SignalStat, peak float64) {
		if s.Peak == nil || *s.Peak != peak || s.Mean == nil || *s.Mean > peak || *s.Mean < 0 {
			t.Errorf("%s: %s", name, fmtStat(s, "%g"))
		}
	}
	check("running", got.Running, 2)
	check("waiting", got.Waiting, 1)
	check("cache", got.Cache, 1)
	if len(got.Samples) != got.Scrapes {
		t.Errorf("%d samples for %d scrapes", len(got.Samples), got.Scrapes)
	}
	for i := 1; i < len(got.Samples); i++ {
		if got.Samples[i].T < got.Samples[i-1].T {
			t.Errorf("sample %d goes back in time", i)
		}
	}
}

func scrapes(sc *scraper) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.out.Scrapes
}

// TestScrapeHostilePages: a level's scrapes of a page with NaN, +Inf and a
// negative queue keep the valid signals, count the rejected values and
// leave a result that encodes as JSON (sweep.json); an https page is read
// with RootCAs; a redirect to a host Allow refuses is an error of the
// scrape, not a sample.
func TestScrapeHostilePages(t *testing.T) {
	t.Parallel()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, "http://scrape-target.invalid/metrics", http.StatusFound)
			return
		}
		io.WriteString(w, "vllm:num_requests_running NaN\nvllm:num_requests_waiting -5\nvllm:kv_cache_usage_perc +Inf\nsglang:num_running_reqs 1e300\n")
	}))
	defer ts.Close()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	loopback := func(u *url.URL) bool { return u.Hostname() == "127.0.0.1" }

	sc := Scrape{URL: ts.URL + "/metrics", Interval: time.Millisecond, RootCAs: pool, Allow: loopback}.start(context.Background(), time.Now())
	for scrapes(sc) < 3 {
		time.Sleep(time.Millisecond)
	}
	got := sc.stop()
	if _, err := json.Marshal(Result{Levels: []Level{{Server: got}}}); err != nil {
		t.Fatalf("the level's server signals do not encode: %v", err)
	}
	if got.Errors != 0 || got.Rejected != 3*got.Scrapes || got.Running.Peak != nil || got.Waiting.Peak != nil || got.Cache.Peak != nil {
		t.Errorf("signals %+v: want every value rejected (3 a scrape), no errors", got)
	}

	sc = Scrape{URL: ts.URL + "/away", Interval: time.Millisecond, RootCAs: pool, Allow: loopback}.start(context.Background(), time.Now())
	for {
		sc.mu.Lock()
		n := sc.out.Errors
		sc.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	got = sc.stop()
	if got.Scrapes != 0 || !strings.Contains(got.LastError, "not on the allow-list") {
		t.Errorf("redirect away: %d scrapes, last error %q", got.Scrapes, got.LastError)
	}
	if err := (Scrape{URL: "http://vllm.internal:8000/metrics", Allow: loopback}).Check("--scrape"); err == nil || !strings.Contains(err.Error(), "allow-list") {
		t.Errorf("a URL off the allow-list: %v", err)
	}
}
