package sweep

import (
	"context"
	"crypto/x509"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
)

// ScrapeMock is the Scrape URL that means "the mock started for the level":
// its /metrics, once the runner has it listening.
const ScrapeMock = serverstats.Mock

// DefaultScrapeInterval is the time between two scrapes of a level.
const DefaultScrapeInterval = time.Second

// Scrape says which Prometheus /metrics to read during each level. Each
// scrape is bounded as serverstats bounds it (the page's bytes and parse
// time; a slow or failing server is scraped less often), and its values
// are checked (a non-finite or out-of-range one is left out and counted).
type Scrape struct {
	URL string // "" none; ScrapeMock; or http://host:port/metrics
	// GPU is an NVIDIA DCGM exporter's /metrics read at the same times
	// ("" none; ScrapeMock: the level's mock's DCGM-like page).
	GPU      string
	Interval time.Duration // 0: DefaultScrapeInterval
	// RootCAs are the CAs an https scrape trusts (nil: the system's).
	RootCAs *x509.CertPool
	// Allow checks the URL and every redirect (the helper's allow-list
	// check); nil: the URL is the user's and redirects stay on its host.
	Allow func(*url.URL) bool
}

// Check refuses a URL that cannot be scraped (CheckURL's rules, and the
// allow-list's): nothing is scraped before the sweep starts.
func (s Scrape) Check(flag string) error {
	if s.URL != "" && s.URL != ScrapeMock {
		if err := s.fetcher().Check(flag, s.URL); err != nil {
			return err
		}
	}
	if s.GPU != "" && s.GPU != ScrapeMock {
		return s.fetcher().Check("--gpu-metrics", s.GPU)
	}
	return nil
}

func (s Scrape) fetcher() *serverstats.Fetcher {
	opts := []serverstats.Option{serverstats.WithRootCAs(s.RootCAs)}
	if s.Allow != nil {
		opts = append(opts, serverstats.WithAllow(s.Allow))
	}
	return serverstats.NewFetcher(max(s.Interval, time.Second), opts...)
}

// ServerSignals are the server's own view of one level: requests running
// (in the batch) and waiting (queued), KV-cache usage (0..1), each scrape on
// the level's time axis (seconds since the level started), and the server's
// own TTFT over the level from its histogram's sum and count.
type ServerSignals struct {
	URL       string  `json:"url"`
	IntervalS float64 `json:"interval_s"`
	Scrapes   int     `json:"scrapes"`
	Errors    int     `json:"errors"`
	// Rejected counts the values left out (not finite, or out of range);
	// Slow the scrapes that took over half the interval and so delayed the
	// next one.
	Rejected  int            `json:"rejected_values"`
	Slow      int            `json:"slow_scrapes"`
	LastError string         `json:"last_error,omitempty"`
	Running   SignalStat     `json:"running"`
	Waiting   SignalStat     `json:"waiting"`
	Cache     SignalStat     `json:"cache_usage"`
	Samples   []ServerSample `json:"samples"`
	// TTFTCount requests got their first token during the level, after
	// TTFTMeanMS on average (null: no histogram, or none).
	TTFTCount  int64    `json:"server_ttft_count"`
	TTFTMeanMS *float64 `json:"server_ttft_mean_ms"`
	// GPU is what the DCGM exporter said (--gpu-metrics, or a --scrape
	// page that has its metrics): utilization (%), memory used (MiB), power
	// (W, all GPUs) and SM clock (MHz), peak and mean over the scrapes; nil
	// when no scrape had any.
	GPU *GPUSignals `json:"gpu,omitempty"`
	// PrefixHitRate is the server's prefix-cache hit rate over the level:
	// its cached prompt tokens over the prompt tokens it looked up
	// (PrefixHits / PrefixQueries, the growth of its counters —
	// serverstats.PrefixNames — from the scrape before the level to the one
	// after it); null when the server has no such counters or none grew.
	PrefixQueries float64  `json:"prefix_cache_queries,omitempty"`
	PrefixHits    float64  `json:"prefix_cache_hits,omitempty"`
	PrefixHitRate *float64 `json:"prefix_cache_hit_rate,omitempty"`
}

// GPUSignals are the GPUs' state over one level.
type GPUSignals struct {
	URL     string     `json:"url"`
	GPUs    int        `json:"gpus"`
	Util    SignalStat `json:"util_pct"`
	MemUsed SignalStat `json:"mem_used_mib"`
	Power   SignalStat `json:"power_w"`
	Clock   SignalStat `json:"sm_clock_mhz"`
	// EnergyPerTokenJ is the energy per output token (J): the mean power
	// over the level times its measured window, over the output tokens of
	// that window (mean power / output tokens per second); null without
	// power or output tokens.
	EnergyPerTokenJ *float64 `json:"energy_per_output_token_j"`
}

// SignalStat is a signal's peak and mean over the scrapes (null: the server
// exports no such metric).
type SignalStat struct {
	Peak *float64 `json:"peak"`
	Mean *float64 `json:"mean"`
}

// ServerSample is one scrape on the level's time axis; a signal the server
// does not export is null.
type ServerSample struct {
	T float64 `json:"t_s"`
	serverstats.Sample
}

// scraper scrapes one level; a nil scraper does nothing.
type scraper struct {
	cfg     Scrape
	fetcher *serverstats.Fetcher
	start   time.Time
	mu      sync.Mutex
	url     string
	gpuURL  string
	gpuSeen string // the GPU URL scraped
	out     ServerSignals
	cancel  context.CancelFunc
	done    chan struct{}
}

// start begins scraping (nil without a URL). With ScrapeMock it waits for
// mockStarted.
func (s Scrape) start(ctx context.Context, at time.Time) *scraper {
	if s.URL == "" && s.GPU == "" {
		return nil
	}
	if s.Interval <= 0 {
		s.Interval = DefaultScrapeInterval
	}
	sc := &scraper{cfg: s, fetcher: s.fetcher(), start: at, done: make(chan struct{}), out: ServerSignals{IntervalS: s.Interval.Seconds(), Samples: []ServerSample{}}}
	if s.URL != ScrapeMock {
		sc.url = s.URL
	}
	if s.GPU != ScrapeMock {
		sc.gpuURL = s.GPU
	}
	ctx, sc.cancel = context.WithCancel(ctx)
	if sc.url != "" {
		// The counters' baseline, before the level's first request.
		sc.once(ctx)
	}
	go sc.loop(ctx)
	return sc
}

// mockStarted is told the URL of the level's mock.
func (sc *scraper) mockStarted(base string) {
	if sc == nil {
		return
	}
	sc.mu.Lock()
	if sc.cfg.URL == ScrapeMock {
		sc.url = strings.TrimSuffix(base, "/") + endpoints.Metrics
	}
	if sc.cfg.GPU == ScrapeMock {
		sc.gpuURL = strings.TrimSuffix(base, "/") + endpoints.GPUMetrics
	}
	sc.mu.Unlock()
}

// loop scrapes with serverstats' loop: at once and then every interval,
// later after a slow or failed scrape.
func (sc *scraper) loop(ctx context.Context) {
	defer close(sc.done)
	serverstats.Loop(ctx, sc.cfg.Interval, sc.once, func() {
		sc.mu.Lock()
		sc.out.Slow++
		sc.mu.Unlock()
	})
}

// once scrapes the URLs known yet (the server's, the GPUs') and reports
// whether neither failed; the GPU page's figures join the server's sample.
func (sc *scraper) once(ctx context.Context) bool {
	sc.mu.Lock()
	url, gpuURL := sc.url, sc.gpuURL
	sc.mu.Unlock()
	if url == "" && gpuURL == "" {
		return true
	}
	var got serverstats.Sample
	var err error
	if url != "" {
		got, err = sc.fetcher.Fetch(ctx, url)
	}
	if gpuURL != "" && err == nil {
		var g serverstats.Sample
		if g, err = sc.fetcher.Fetch(ctx, gpuURL); err == nil {
			got.GPU, got.Rejected = g.GPU, got.Rejected+g.Rejected
		}
	}
	s := ServerSample{Sample: got}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.out.URL = url
	if gpuURL != "" {
		sc.gpuSeen = gpuURL
	}
	if err != nil {
		if ctx.Err() == nil {
			sc.out.Errors++
			sc.out.LastError = err.Error()
		}
		return false
	}
	s.T = time.Since(sc.start).Seconds()
	sc.out.Scrapes++
	sc.out.Rejected += got.Rejected
	sc.out.Samples = append(sc.out.Samples, s)
	return true
}

// stop ends scraping and sums the level up (nil for a nil scraper).
func (sc *scraper) stop() *ServerSignals {
	if sc == nil {
		return nil
	}
	sc.cancel()
	<-sc.done
	if sc.cfg.URL != ScrapeMock && sc.url != "" {
		// The level's last word, after its last request (a level's own
		// mock is gone by now: its counters end at the last interval).
		ctx, cancel := context.WithTimeout(context.Background(), max(sc.cfg.Interval, time.Second))
		sc.once(ctx)
		cancel()
	}
	out := sc.out
	if sc.cfg.URL == ScrapeMock && out.URL == "" {
		out.URL = ScrapeMock
	}
	out.Running = statOf(out.Samples, func(s ServerSample) *float64 { return s.Running })
	out.Waiting = statOf(out.Samples, func(s ServerSample) *float64 { return s.Waiting })
	out.Cache = statOf(out.Samples, func(s ServerSample) *float64 { return s.Cache })
	out.TTFTCount, out.TTFTMeanMS = ttftOver(out.Samples)
	out.GPU = gpuOver(out.Samples, sc.gpuSeen)
	out.PrefixQueries, out.PrefixHits, out.PrefixHitRate = prefixOver(out.Samples)
	return &out
}

// gpuOver sums up the GPU figures of the scrapes (nil: none had any).
func gpuOver(ss []ServerSample, url string) *GPUSignals {
	g := &GPUSignals{URL: url}
	seen := false
	pick := func(f func(*serverstats.GPU) *float64) func(ServerSample) *float64 {
		return func(s ServerSample) *float64 {
			if s.GPU == nil {
				return nil
			}
			seen = true
			g.GPUs = max(g.GPUs, s.GPU.GPUs)
			return f(s.GPU)
		}
	}
	g.Util = statOf(ss, pick(func(x *serverstats.GPU) *float64 { return x.Util }))
	g.MemUsed = statOf(ss, pick(func(x *serverstats.GPU) *float64 { return x.MemUsed }))
	g.Power = statOf(ss, pick(func(x *serverstats.GPU) *float64 { return x.Power }))
	g.Clock = statOf(ss, pick(func(x *serverstats.GPU) *float64 { return x.Clock }))
	if !seen {
		return nil
	}
	return g
}

// setEnergy fills the energy per output token of a level: mean power over
// output tokens per second (W / (token/s) = J/token).
func (lv *Level) setEnergy() {
	if lv.Server == nil || lv.Server.GPU == nil {
		return
	}
	g := lv.Server.GPU
	if g.Power.Mean == nil || lv.OutputTPS == nil || *lv.OutputTPS <= 0 {
		return
	}
	g.EnergyPerTokenJ = num(*g.Power.Mean / *lv.OutputTPS)
}

func statOf(ss []ServerSample, get func(ServerSample) *float64) SignalStat {
	var st SignalStat
	peak, sum, n := math.Inf(-1), 0.0, 0
	for _, s := range ss {
		if v := get(s); v != nil {
			peak, sum, n = math.Max(peak, *v), sum+*v, n+1
		}
	}
	if n > 0 {
		st.Peak, st.Mean = num(peak), num(sum/float64(n))
	}
	return st
}

// ttftOver is the server's TTFT between the first and the last scrape: the
// histogram's count and sum grew by the requests that got a first token.
func ttftOver(ss []ServerSample) (int64, *float64) {
	var first, last *ServerSample
	for i := range ss {
		if ss[i].HasTTFT {
			if first == nil {
				first = &ss[i]
			}
			last = &ss[i]
		}
	}
	if first == nil || last.TTFTCount <= first.TTFTCount {
		return 0, nil
	}
	n := last.TTFTCount - first.TTFTCount
	return int64(n), num(1000 * (last.TTFTSum - first.TTFTSum) / n)
}
