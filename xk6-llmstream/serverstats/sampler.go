package serverstats

import (
	"context"
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

// Sampler scrapes one /metrics page every interval and holds the latest
// scrape, for stamping requests at their start at the cost of one atomic
// load. Its methods are safe for concurrent use; a nil Sampler holds nothing.
type Sampler struct {
	url      string
	interval time.Duration
	client   *http.Client
	latest   atomic.Pointer[Sample]

	mu      sync.Mutex
	stats   SamplerStats
	cancel  context.CancelFunc
	done    chan struct{}
	stopped sync.Once
}

// SamplerStats count a Sampler's scrapes.
type SamplerStats struct {
	Scrapes   int64  // that succeeded
	Errors    int64  // that failed
	LastError string // of the last failure
}

// StartSampler scrapes rawURL (checked with CheckURL first) at once and then
// every interval (0 or less: DefaultInterval), each scrape bounded by the
// interval (at least 1 s), until Stop. Its errors (in SamplerStats) may
// hold the URL, which CheckURL keeps free of credentials.
func StartSampler(rawURL string, interval time.Duration) (*Sampler, error) {
	if err := CheckURL("scrape URL", rawURL); err != nil {
		return nil, err
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	s := &Sampler{url: rawURL, interval: interval, done: make(chan struct{}),
		client: &http.Client{Timeout: max(interval, time.Second)}}
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

func (s *Sampler) loop(ctx context.Context) {
	defer close(s.done)
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for {
		s.once(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (s *Sampler) once(ctx context.Context) {
	got, err := Fetch(ctx, s.client, s.url)
	if errors.Is(ctx.Err(), context.Canceled) {
		return // stopping: not a failure of the server
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.latest.Store(nil)
		s.stats.Errors++
		s.stats.LastError = err.Error()
		return
	}
	s.latest.Store(&got)
	s.stats.Scrapes++
}
