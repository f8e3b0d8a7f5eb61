package serverstats

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Mock is the scrape URL that means "the mock this run starts": its /metrics
// (the sweep's and `run`'s --scrape mock).
const Mock = "mock"

// DefaultInterval is the time between two scrapes of a Sampler.
const DefaultInterval = 250 * time.Millisecond

// MaxBackoff is the longest delay between two scrapes after slow or failed
// ones.
const MaxBackoff = 30 * time.Second

// maxRedirects is the most redirects one scrape follows.
const maxRedirects = 3

// CheckURL checks a scrape URL given as the input named flag: an absolute
// http or https URL with a host, without user info or query (a secret in
// them would end up in logs). The error names the flag and never repeats
// the URL; nothing is resolved.
func CheckURL(flag, raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%s: not a URL (want http(s)://host:port/metrics)", flag)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%s: scheme %q: want an http or https URL such as http://127.0.0.1:8000/metrics", flag, u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%s: the URL has no host (want http(s)://host:port/metrics)", flag)
	case u.User != nil:
		return fmt.Errorf("%s: the URL carries user info: credentials are not accepted in a scrape URL", flag)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%s: the URL carries a query or fragment: a scrape URL takes none (a secret in it would reach the logs)", flag)
	}
	return nil
}

// Option configures a Fetcher (and a Sampler's).
type Option func(*options)

type options struct {
	limits Limits
	roots  *x509.CertPool
	allow  func(*url.URL) bool
}

// WithRootCAs makes https scrapes trust the certificate authorities in pool,
// and only them (nil: the system's roots).
func WithRootCAs(pool *x509.CertPool) Option { return func(o *options) { o.roots = pool } }

// WithAllow checks the scrape URL and every redirect against allow (the
// helper's allow-list check, helper.AllowList.Allows): a URL it refuses is
// not scraped. Without it the URL is the user's own and a redirect may only
// stay on the URL's scheme, host and port.
func WithAllow(allow func(*url.URL) bool) Option { return func(o *options) { o.allow = allow } }

// WithLimits bounds each page (0 fields: the defaults).
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }

// Fetcher scrapes pages under the rules of its options: the page limits,
// the CA roots, and the allow-list for the URL and its redirects.
type Fetcher struct {
	client *http.Client
	limits Limits
	allow  func(*url.URL) bool
}

// NewFetcher makes a Fetcher whose scrapes (connect, redirects, body) take
// at most timeout each.
func NewFetcher(timeout time.Duration, opts ...Option) *Fetcher {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if o.roots != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: o.roots, MinVersion: tls.VersionTLS12}
	}
	f := &Fetcher{limits: o.limits.withDefaults(), allow: o.allow}
	f.client = &http.Client{Timeout: timeout, Transport: tr, CheckRedirect: f.checkRedirect}
	return f
}

// ErrRefused is the error of a URL or redirect the rules refuse.
var ErrRefused = errors.New("refused")

// Check refuses a URL the allow-list does not allow (nil without
// WithAllow, after CheckURL). The error names the host, not the URL.
func (f *Fetcher) Check(flag, raw string) error {
	if err := CheckURL(flag, raw); err != nil {
		return err
	}
	u, _ := url.Parse(raw)
	if f.allow != nil && !f.allow(u) {
		return fmt.Errorf("%s: %w: host %s is not on the allow-list (--allow)", flag, ErrRefused, u.Host)
	}
	return nil
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrRefused, maxRedirects)
	}
	if err := CheckURL("redirect", req.URL.String()); err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	first := via[0].URL
	switch {
	case f.allow != nil && !f.allow(req.URL):
		return fmt.Errorf("%w: redirect to host %s, which is not on the allow-list (--allow)", ErrRefused, req.URL.Host)
	case f.allow == nil && (req.URL.Scheme != first.Scheme || req.URL.Host != first.Host):
		return fmt.Errorf("%w: redirect from %s to %s://%s: a scrape is only redirected on its own scheme, host and port", ErrRefused, first.Host, req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// Fetch GETs one page and parses it within the limits.
func (f *Fetcher) Fetch(ctx context.Context, url string) (Sample, error) {
	return fetch(ctx, f.client, url, f.limits)
}

// Sampler scrapes one /metrics page every interval and holds the latest
// scrape, for stamping requests at their start at the cost of one atomic
// load. Its methods are safe for concurrent use; a nil Sampler holds nothing.
type Sampler struct {
	url      string
	interval time.Duration
	fetcher  *Fetcher
	latest   atomic.Pointer[Sample]

	mu      sync.Mutex
	stats   SamplerStats
	cancel  context.CancelFunc
	done    chan struct{}
	stopped sync.Once
}

// SamplerStats count a Sampler's scrapes.
type SamplerStats struct {
	Scrapes int64 // that succeeded
	Errors  int64 // that failed
	// Rejected counts the values left out of the samples: not finite or
	// out of range (Sample.Rejected).
	Rejected int64
	// Slow counts the scrapes that took more than half the interval and so
	// delayed the next one (NextDelay).
	Slow      int64
	LastError string // of the last failure
}

// StartSampler scrapes rawURL (checked with CheckURL, and the allow-list of
// WithAllow, first) at once and then every interval (0 or less:
// DefaultInterval) — later after a slow or failed scrape (NextDelay) — each
// scrape bounded by the interval (at least 1 s) and the page limits, until
// Stop. Its errors (in SamplerStats) may hold the URL, which CheckURL keeps
// free of credentials.
func StartSampler(rawURL string, interval time.Duration, opts ...Option) (*Sampler, error) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	f := NewFetcher(max(interval, time.Second), opts...)
	if err := f.Check("scrape URL", rawURL); err != nil {
		return nil, err
	}
	s := &Sampler{url: rawURL, interval: interval, done: make(chan struct{}), fetcher: f}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.loop(ctx)
	return s, nil
}

// Latest is the latest scrape when it succeeded; nil before the first one,
// after a failed one, and for a nil Sampler.
func (s *Sampler) Latest() *Sample {
	if s == nil {
		return nil
	}
	return s.latest.Load()
}

// Stop ends the scraping, waits for a scrape in progress and returns the
// counts. It is safe to call more than once, and on a nil Sampler.
func (s *Sampler) Stop() SamplerStats {
	if s == nil {
		return SamplerStats{}
	}
	s.stopped.Do(func() {
		s.cancel()
		<-s.done
	})
	return s.Stats()
}

// Stats returns the counts so far.
func (s *Sampler) Stats() SamplerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// NextDelay is the time from the end of a scrape that took took to the
// start of the next: the interval; four times took when the scrape took
// more than half the interval (a slow server or page is not asked more
// often than it can answer); doubled for each of up to 5 failures in a row;
// at most MaxBackoff (and never under the interval).
func NextDelay(interval, took time.Duration, failures int) time.Duration {
	d := interval
	if took > interval/2 {
		d = max(d, 4*took)
	}
	d <<= min(max(failures, 0), 5)
	return max(interval, min(d, MaxBackoff))
}

// Loop is the one scrape loop (the Sampler's and the sweep's): it calls
// scrape at once and then every interval — later after a slow or failed
// scrape (NextDelay; scrape reports whether it succeeded) — until ctx ends.
// slow is called after each scrape that took more than half the interval.
func Loop(ctx context.Context, interval time.Duration, scrape func(context.Context) bool, slow func()) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		start := time.Now()
		ok := scrape(ctx)
		took := time.Since(start)
		if failures++; ok {
			failures = 0 // counts the failures in a row
		}
		if took > interval/2 {
			slow()
		}
		timer.Reset(NextDelay(interval, took, failures))
	}
}

func (s *Sampler) loop(ctx context.Context) {
	defer close(s.done)
	Loop(ctx, s.interval, s.once, func() {
		s.mu.Lock()
		s.stats.Slow++
		s.mu.Unlock()
	})
}

// once scrapes and reports whether it succeeded.
func (s *Sampler) once(ctx context.Context) bool {
	got, err := s.fetcher.Fetch(ctx, s.url)
	if errors.Is(ctx.Err(), context.Canceled) {
		return true // stopping: not a failure of the server
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.latest.Store(nil)
		s.stats.Errors++
		s.stats.LastError = err.Error()
		return false
	}
	s.latest.Store(&got)
	s.stats.Scrapes++
	s.stats.Rejected += int64(got.Rejected)
	return true
}
