package serverstats

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestNonFiniteRejected: NaN, ±Inf, a negative queue, 1e300 requests and a
// KV-cache usage above 1 never reach a Sample: their signal is nil, each
// bad value is counted, and the Sample encodes as JSON (the helper's
// records writer encodes it).
func TestNonFiniteRejected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, page string
		rejected   int
		check      func(Sample) bool
	}{
		{"NaN running", "vllm:num_requests_running NaN\nvllm:num_requests_waiting 2\n", 1,
			func(s Sample) bool { return s.Running == nil && s.Waiting != nil && *s.Waiting == 2 }},
		{"+Inf waiting", "vllm:num_requests_waiting +Inf\nvllm:num_requests_running 1\n", 1,
			func(s Sample) bool { return s.Waiting == nil && *s.Running == 1 }},
		{"-Inf cache", "vllm:kv_cache_usage_perc -Inf\n", 1, func(s Sample) bool { return s.Cache == nil }},
		{"negative queue", "vllm:num_requests_waiting{m=\"a\"} -5\nvllm:num_requests_waiting{m=\"b\"} 3\n", 1,
			func(s Sample) bool { return s.Waiting == nil }},
		{"absurd count", "sglang:num_running_reqs 1e300\n", 1, func(s Sample) bool { return s.Running == nil }},
		{"cache above 1", "vllm:kv_cache_usage_perc 1.5\n", 1, func(s Sample) bool { return s.Cache == nil }},
		{"caches summing above 1", "vllm:kv_cache_usage_perc{e=\"0\"} 0.7\nvllm:kv_cache_usage_perc{e=\"1\"} 0.7\n", 1,
			func(s Sample) bool { return s.Cache == nil }},
		{"NaN TTFT sum", "# TYPE vllm:time_to_first_token_seconds histogram\nvllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} 4\nvllm:time_to_first_token_seconds_sum NaN\nvllm:time_to_first_token_seconds_count 4\n", 1,
			func(s Sample) bool { return !s.HasTTFT && s.TTFTSum == 0 }},
		{"in range", "vllm:num_requests_running 0\nvllm:num_requests_waiting 1e6\nvllm:kv_cache_usage_perc 1\n", 0,
			func(s Sample) bool { return *s.Running == 0 && *s.Waiting == 1e6 && *s.Cache == 1 }},
	} {
		s, err := Parse(strings.NewReader(tc.page))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s.Rejected != tc.rejected || !tc.check(s) {
			t.Errorf("%s: %+v (rejected %d, want %d)", tc.name, s, s.Rejected, tc.rejected)
		}
		if _, err := json.Marshal(s); err != nil {
			t.Errorf("%s: the sample does not encode: %v", tc.name, err)
		}
	}
}

// TestSamplerNaNPage: a Sampler of a page with NaN holds a sample that
// encodes, without the signal, and counts the rejected value.
func TestSamplerNaNPage(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "vllm:num_requests_running NaN\nvllm:num_requests_waiting 3\n")
	}))
	defer ts.Close()
	s, err := StartSampler(ts.URL+"/metrics", time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.Latest() != nil })
	l := s.Latest()
	st := s.Stop()
	if b, err := json.Marshal(l); err != nil || l.Running != nil || *l.Waiting != 3 {
		t.Errorf("latest %s, %v: want running left out, waiting 3", b, err)
	}
	if st.Rejected < 1 || st.Rejected != st.Scrapes {
		t.Errorf("stats %+v: want one rejected value per scrape", st)
	}
}

// junk is a page's worth of lines of no known metric.
const junkLine = "# a comment line of a page that never ends, padding padding padding\n"

// endless serves junk lines until the client goes away (limit 0) or limit
// bytes, and counts what it wrote.
func endless(limit int64, wrote *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for limit == 0 || wrote.Load() < limit {
			n, err := io.WriteString(w, junkLine)
			wrote.Add(int64(n))
			if err != nil {
				return
			}
		}
	}
}

// TestHugePageBounded: a 24 MiB page fails with the size limit named, and
// the scrape stops reading near the limit.
func TestHugePageBounded(t *testing.T) {
	t.Parallel()
	var wrote atomic.Int64
	ts := httptest.NewServer(endless(24<<20, &wrote))
	defer ts.Close()
	_, err := Fetch(context.Background(), ts.Client(), ts.URL)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(DefaultMaxBytes)) {
		t.Fatalf("error %v: want ErrTooLarge naming the limit of %d bytes", err, DefaultMaxBytes)
	}
	ts.Close() // waits for the handler: wrote is final
	if n := wrote.Load(); n >= 24<<20 {
		t.Errorf("the server wrote all %d bytes: the scrape read past its limit", n)
	}
}

// TestEndlessPageBounded: a page that never ends fails at the size limit
// (not at a timeout), well before the deadline of the test's context.
func TestEndlessPageBounded(t *testing.T) {
	t.Parallel()
	var wrote atomic.Int64
	ts := httptest.NewServer(endless(0, &wrote))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // the old scraper ran until this
	defer cancel()
	_, err := Fetch(ctx, ts.Client(), ts.URL)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error %v: want ErrTooLarge", err)
	}
}

// TestKnownLinesBounded: a page of more than MaxKnownLines lines of a known
// metric fails with that limit named, and a page within the size limit but
// read too slowly fails with the time limit named (fake clock).
func TestKnownLinesBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range MaxKnownLines + 1 {
		fmt.Fprintf(&b, "vllm:num_requests_running{i=\"%d\"} 1\n", i)
	}
	_, err := Parse(strings.NewReader(b.String()))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(MaxKnownLines)) {
		t.Errorf("error %v: want ErrTooLarge naming %d lines", err, MaxKnownLines)
	}
	synctest.Test(t, func(t *testing.T) {
		_, err := ParseLimited(&slowReader{}, Limits{MaxBytes: 1 << 40, ParseTimeout: time.Second})
		if !errors.Is(err, ErrTooSlow) || !strings.Contains(err.Error(), "1s") {
			t.Errorf("error %v: want ErrTooSlow naming the limit of 1s", err)
		}
	})
}

// slowReader yields junk lines forever, 10 ms (of the bubble's fake clock)
// per line.
type slowReader struct{}

func (*slowReader) Read(p []byte) (int, error) {
	time.Sleep(10 * time.Millisecond)
	return copy(p, junkLine), nil
}

// TestHTTPSWithCA: an https scrape fails without the server's CA and
// succeeds with WithRootCAs.
func TestHTTPSWithCA(t *testing.T) {
	t.Parallel()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "vllm:num_requests_waiting 4\n")
	}))
	defer ts.Close()
	if _, err := NewFetcher(5*time.Second).Fetch(context.Background(), ts.URL+"/metrics"); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Errorf("without the CA: %v, want an x509 error", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	got, err := NewFetcher(5*time.Second, WithRootCAs(pool)).Fetch(context.Background(), ts.URL+"/metrics")
	if err != nil || got.Waiting == nil || *got.Waiting != 4 {
		t.Fatalf("with the CA: %+v, %v", got, err)
	}
	s, err := StartSampler(ts.URL+"/metrics", time.Millisecond, WithRootCAs(pool))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.Latest() != nil })
	if st := s.Stop(); st.Scrapes < 1 {
		t.Errorf("sampler stats %+v", st)
	}
}

// TestRedirects: a redirect on the same host is followed; one to a host
// the allow-list refuses is not (checked before any connection or name
// lookup: the host is never resolved), nor, without an allow-list, one to
// another host; a scrape URL the allow-list refuses does not start.
func TestRedirects(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/metrics", http.StatusFound)
		case "/away":
			http.Redirect(w, r, "http://scrape-target.invalid:9/metrics", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			io.WriteString(w, "vllm:num_requests_waiting 1\n")
		}
	}))
	defer ts.Close()
	loopbackOnly := func(u *url.URL) bool { return u.Hostname() == "127.0.0.1" }
	ctx := context.Background()
	for _, f := range []*Fetcher{NewFetcher(5 * time.Second), NewFetcher(5*time.Second, WithAllow(loopbackOnly))} {
		if got, err := f.Fetch(ctx, ts.URL+"/old"); err != nil || got.Waiting == nil {
			t.Errorf("same-host redirect: %+v, %v", got, err)
		}
		_, err := f.Fetch(ctx, ts.URL+"/away")
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "scrape-target.invalid") {
			t.Errorf("redirect away: %v, want refused naming the host", err)
		}
		if _, err := f.Fetch(ctx, ts.URL+"/loop"); !errors.Is(err, ErrRefused) {
			t.Errorf("redirect loop: %v, want refused", err)
		}
	}
	refuseAll := func(*url.URL) bool { return false }
	if _, err := StartSampler(ts.URL+"/metrics", 0, WithAllow(refuseAll)); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "allow-list") {
		t.Errorf("a refused URL: %v", err)
	}
}

// TestNextDelay: the interval normally; four times a slow scrape; doubled
// per failure in a row, capped.
func TestNextDelay(t *testing.T) {
	t.Parallel()
	const iv = 250 * time.Millisecond
	for _, tc := range []struct {
		took     time.Duration
		failures int
		want     time.Duration
	}{
		{time.Millisecond, 0, iv},
		{iv / 2, 0, iv},
		{200 * time.Millisecond, 0, 800 * time.Millisecond},
		{3 * time.Second, 0, 12 * time.Second},
		{time.Millisecond, 1, 2 * iv},
		{time.Millisecond, 3, 8 * iv},
		{time.Millisecond, 50, 32 * iv},
		{20 * time.Second, 2, MaxBackoff},
	} {
		if got := NextDelay(iv, tc.took, tc.failures); got != tc.want {
			t.Errorf("NextDelay(%v, %v, %d) = %v, want %v", iv, tc.took, tc.failures, got, tc.want)
		}
	}
	if got := NextDelay(time.Minute, 0, 3); got != time.Minute {
		t.Errorf("an interval over MaxBackoff: %v", got)
	}
}

// TestLoop: the loop scrapes at once, stops when ctx ends, and calls slow
// only for a scrape that took over half the interval (a 1 ms sleep against a
// 1 ms interval; nothing against an hour).
func TestLoop(t *testing.T) {
	for _, tc := range []struct {
		interval, sleep time.Duration
		wantSlow        int
	}{
		{time.Hour, 0, 0},
		{time.Millisecond, time.Millisecond, 3},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		calls, slow := 0, 0
		Loop(ctx, tc.interval, func(context.Context) bool {
			calls++
			time.Sleep(tc.sleep)
			if calls == 3 || tc.interval == time.Hour {
				cancel()
			}
			return calls%2 == 0
		}, func() { slow++ })
		cancel()
		wantCalls := 3
		if tc.interval == time.Hour {
			wantCalls = 1
		}
		if calls != wantCalls || slow != tc.wantSlow {
			t.Errorf("interval %v: %d scrapes, %d slow; want %d, %d", tc.interval, calls, slow, wantCalls, tc.wantSlow)
		}
	}
}
