// Package serverstats reads an inference server's own view of its load from
// its Prometheus /metrics: requests running (in the batch) and waiting
// (queued), KV-cache usage and the server's TTFT histogram, under the metric
// names of vLLM, SGLang, TGI and llama.cpp (and the mock, which serves
// vLLM's). The sweep reads it once per interval of a level; the helper's
// Sampler keeps the latest scrape for stamping each request's record.
//
// A page is untrusted input read beside the helper's stamping of streams, so
// every read is bounded: at most MaxBytes of body (DefaultMaxBytes), at most
// ParseTimeout of reading and parsing (DefaultParseTimeout), only the lines
// of the known metrics handed to the Prometheus parser, the goroutine
// yielding every few KiB so the stamping keeps its processors. A value that
// is not finite or out of range (a negative queue, 1e300 requests, a KV-cache
// usage above 1) is never kept: its signal is left out of the Sample and the
// value counted in Sample.Rejected.
package serverstats

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Signal names: for each server signal, the metric names of the servers
// that export it (vLLM, vLLM v1, SGLang, TGI, llama.cpp), in the order they
// are looked for; the values of every label set are added up (several
// models or engines).
var (
	RunningNames = []string{"vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size", "llamacpp:requests_processing"}
	WaitingNames = []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "tgi_queue_size", "llamacpp:requests_deferred"}
	CacheNames   = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage", "llamacpp:kv_cache_usage_ratio"}
	TTFTNames    = []string{"vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds"}
	// PrefixNames pair each server's prefix-cache counters, in prompt
	// tokens: (queried, served from the cache). vLLM v1's
	// vllm:prefix_cache_queries / _hits (vllm/v1/metrics/loggers.py; the
	// mock serves them too), vLLM's older gpu_ names, and SGLang's prompt
	// and cached tokens (python/sglang/srt/metrics/collector.py,
	// TokenizerMetricsCollector). The first pair the page has both of wins.
	PrefixNames = [][2]string{
		{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total"},
		{"vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_hits_total"},
		{"sglang:prompt_tokens_total", "sglang:cached_tokens_total"},
	}
)

// The NVIDIA DCGM exporter's metric names (dcgm-exporter's default
// counters), one series per GPU: utilization (%), framebuffer memory used
// (MiB), power draw (W), SM clock (MHz).
const (
	GPUUtilName    = "DCGM_FI_DEV_GPU_UTIL"
	GPUMemUsedName = "DCGM_FI_DEV_FB_USED"
	GPUPowerName   = "DCGM_FI_DEV_POWER_USAGE"
	GPUClockName   = "DCGM_FI_DEV_SM_CLOCK"
)

// The largest values of a GPU's signals taken as real.
const (
	MaxGPUMemMiB   = 1 << 24 // 16 TiB
	MaxGPUPowerW   = 1e5
	MaxGPUClockMHz = 1e5
)

// Limits of one page.
const (
	// DefaultMaxBytes is the most of a page read (a vLLM page is about
	// 100 KiB): a larger page is an error naming the limit.
	DefaultMaxBytes = 4 << 20
	// DefaultParseTimeout bounds reading and parsing one page's body.
	DefaultParseTimeout = 2 * time.Second
	// MaxRequests is the largest count of requests (running or waiting)
	// taken as real; a larger one is rejected as garbage.
	MaxRequests = 1e7
	// MaxKnownLines is the most lines of the known metrics a page may
	// hold (a real server has a few hundred).
	MaxKnownLines = 10000
	// yieldEvery is how many bytes are scanned between two yields of the
	// processor.
	yieldEvery = 32 << 10
)

// ErrTooLarge is the error of a page over its size limit.
var ErrTooLarge = errors.New("page too large")

// ErrTooSlow is the error of a page whose reading and parsing ran over
// its time limit.
var ErrTooSlow = errors.New("page too slow")

// Sample is one scrape; a signal the server does not export, or exports
// with a value that was rejected, is nil.
type Sample struct {
	Running *float64 `json:"running"`
	Waiting *float64 `json:"waiting"`
	Cache   *float64 `json:"cache_usage"`
	// TTFTSum (s) and TTFTCount are the server's TTFT histogram's sum and
	// count (HasTTFT: the page has one, with valid values).
	TTFTSum   float64 `json:"-"`
	TTFTCount float64 `json:"-"`
	HasTTFT   bool    `json:"-"`
	// PrefixQueries and PrefixHits are the server's prefix-cache counters
	// (PrefixNames: prompt tokens looked up, and served from the cache),
	// cumulative; nil when the page has no pair of them.
	PrefixQueries *float64 `json:"-"`
	PrefixHits    *float64 `json:"-"`
	// GPU is the DCGM exporter's view of the GPUs on the page: utilization
	// and SM clock averaged over the GPUs, memory used and power added up;
	// nil when the page has none of its metrics.
	GPU *GPU `json:"gpu,omitempty"`
	// Rejected counts the values of known signals that were not finite or
	// out of range; each left its signal out.
	Rejected int `json:"rejected,omitempty"`
}

// Limits bound the reading of one page (0: the default).
type Limits struct {
	MaxBytes     int64
	ParseTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.ParseTimeout <= 0 {
		l.ParseTimeout = DefaultParseTimeout
	}
	return l
}

// Fetch GETs one /metrics page with c and parses it within the default
// Limits. A Fetcher adds the scrape's other rules (CA roots, allow-list).
func Fetch(ctx context.Context, c *http.Client, url string) (Sample, error) {
	return fetch(ctx, c, url, Limits{})
}

func fetch(ctx context.Context, c *http.Client, url string, lim Limits) (Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Sample{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return Sample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Sample{}, fmt.Errorf("%s: %s", url, resp.Status)
	}
	if lim = lim.withDefaults(); resp.ContentLength > lim.MaxBytes {
		return Sample{}, fmt.Errorf("%s: %w: Content-Length %d is over the limit of %d bytes", url, ErrTooLarge, resp.ContentLength, lim.MaxBytes)
	}
	s, err := ParseLimited(resp.Body, lim)
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w", url, err)
	}
	return s, nil
}

// Parse reads one page in the Prometheus text format within the default
// Limits.
func Parse(r io.Reader) (Sample, error) { return ParseLimited(r, Limits{}) }

// ParseLimited reads one page in the Prometheus text format: the lines of
// the known metrics go to expfmt's parser, the others are skipped. More
// than lim.MaxBytes is ErrTooLarge, more than lim.ParseTimeout ErrTooSlow
// (each error names its limit).
func ParseLimited(r io.Reader, lim Limits) (Sample, error) {
	lim = lim.withDefaults()
	kept, err := keepKnown(r, lim, time.Now().Add(lim.ParseTimeout))
	if err != nil {
		return Sample{}, err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(kept))
	if err != nil {
		return Sample{}, err
	}
	var s Sample
	s.Running = gaugeSum(fams, RunningNames, MaxRequests, &s.Rejected)
	s.Waiting = gaugeSum(fams, WaitingNames, MaxRequests, &s.Rejected)
	s.Cache = gaugeSum(fams, CacheNames, 1, &s.Rejected)
	s.TTFTSum, s.TTFTCount, s.HasTTFT = histogramSum(fams, TTFTNames, &s.Rejected)
	s.GPU = gpuOf(fams, &s.Rejected)
	s.PrefixQueries, s.PrefixHits = prefixOf(fams, &s.Rejected)
	return s, nil
}

// GPU is one scrape of the DCGM exporter's metrics over all GPUs; a signal
// the page lacks (or whose value was rejected) is nil.
type GPU struct {
	Util    *float64 `json:"util_pct"`     // mean over the GPUs, 0..100
	MemUsed *float64 `json:"mem_used_mib"` // sum
	Power   *float64 `json:"power_w"`      // sum
	Clock   *float64 `json:"sm_clock_mhz"` // mean
	GPUs    int      `json:"gpus"`         // series of the utilization (else of any signal)
}

// gpuOf reads the DCGM signals (nil: the page has none).
func gpuOf(fams map[string]*dto.MetricFamily, rejected *int) *GPU {
	var g GPU
	n := 0
	mean := func(name string, limit float64) *float64 {
		v, k := gaugeParts(fams, name, limit, rejected)
		if v == nil || k == 0 {
			return nil
		}
		n = max(n, k)
		m := *v / float64(k)
		return &m
	}
	sum := func(name string, limit float64) *float64 {
		v, k := gaugeParts(fams, name, limit, rejected)
		n = max(n, k)
		return v
	}
	g.Util = mean(GPUUtilName, 100)
	g.MemUsed = sum(GPUMemUsedName, MaxGPUMemMiB)
	g.Power = sum(GPUPowerName, MaxGPUPowerW)
	g.Clock = mean(GPUClockName, MaxGPUClockMHz)
	if g.Util == nil && g.MemUsed == nil && g.Power == nil && g.Clock == nil {
		return nil
	}
	g.GPUs = n
	return &g
}

// gaugeParts adds up the series of one metric, each in [0, limit] (nil:
// none, or a value out of range, counted in rejected), and says how many
// series there were.
func gaugeParts(fams map[string]*dto.MetricFamily, name string, limit float64, rejected *int) (*float64, int) {
	f, ok := fams[name]
	if !ok {
		return nil, 0
	}
	sum, n := 0.0, 0
	for _, m := range f.GetMetric() {
		var x float64
		switch {
		case m.GetGauge() != nil:
			x = m.GetGauge().GetValue()
		case m.GetUntyped() != nil:
			x = m.GetUntyped().GetValue()
		default:
			continue
		}
		if !valid(x, limit) {
			*rejected++
			return nil, 0
		}
		sum, n = sum+x, n+1
	}
	if n == 0 {
		return nil, 0
	}
	return &sum, n
}

// known are the metric names whose lines are kept: the signals', and a
// histogram's series.
var known = func() map[string]bool {
	m := map[string]bool{}
	for _, names := range [][]string{RunningNames, WaitingNames, CacheNames, {GPUUtilName, GPUMemUsedName, GPUPowerName, GPUClockName}} {
		for _, n := range names {
			m[n] = true
		}
	}
	for _, p := range PrefixNames {
		m[p[0]], m[p[1]] = true, true
	}
	for _, n := range TTFTNames {
		for _, s := range []string{"", "_bucket", "_sum", "_count"} {
			m[n+s] = true
		}
	}
	return m
}()

// keepKnown reads a page line by line and returns its lines of the known
// metrics (samples, # TYPE and # HELP), within the limits. It yields the
// processor every yieldEvery bytes: a page is read beside the stamping of
// streams, which must not wait for it.
func keepKnown(r io.Reader, lim Limits, deadline time.Time) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []byte
	var read, sinceYield int64
	lines := 0
	keep, skipping := false, false // skipping: the rest of a long line
	for {
		line, err := br.ReadSlice('\n')
		read += int64(len(line))
		sinceYield += int64(len(line))
		if read > lim.MaxBytes {
			return nil, fmt.Errorf("%w: more than the limit of %d bytes", ErrTooLarge, lim.MaxBytes)
		}
		if sinceYield >= yieldEvery {
			sinceYield = 0
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%w: reading and parsing took more than the limit of %v", ErrTooSlow, lim.ParseTimeout)
			}
			runtime.Gosched()
		}
		if !skipping {
			if keep = wanted(line); keep {
				if lines++; lines > MaxKnownLines {
					return nil, fmt.Errorf("%w: more than the limit of %d lines of the known metrics", ErrTooLarge, MaxKnownLines)
				}
			}
		}
		if keep {
			out = append(out, line...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			skipping = true
			continue
		case err == io.EOF:
			if len(out) > 0 && out[len(out)-1] != '\n' {
				out = append(out, '\n')
			}
			return out, nil
		case err != nil:
			return nil, err
		}
		skipping = false
	}
}

// wanted reports whether a line belongs to a known metric: its name (bare,
// or quoted in braces, UTF-8 style) or, for # TYPE and # HELP, the name
// after the keyword.
func wanted(line []byte) bool {
	if rest, ok := bytes.CutPrefix(line, []byte("# TYPE ")); ok {
		line = rest
	} else if rest, ok := bytes.CutPrefix(line, []byte("# HELP ")); ok {
		line = rest
	} else if len(line) > 0 && line[0] == '#' {
		return false
	}
	if rest, ok := bytes.CutPrefix(line, []byte("{")); ok {
		line = rest
	}
	if rest, ok := bytes.CutPrefix(line, []byte(`"`)); ok {
		end := bytes.IndexByte(rest, '"')
		return end >= 0 && known[string(rest[:end])]
	}
	end := bytes.IndexAny(line, "{ \t\r\n")
	if end < 0 {
		end = len(line)
	}
	return known[string(line[:end])]
}

// valid says whether a value can be a signal's: finite, from 0 to max.
func valid(v, max float64) bool { return !math.IsNaN(v) && v >= 0 && v <= max }

// gaugeSum adds up the first of the names the page has (nil: none, or a
// value not in [0, max], counted in rejected, or a sum over max).
func gaugeSum(fams map[string]*dto.MetricFamily, names []string, max float64, rejected *int) *float64 {
	for _, n := range names {
		f, ok := fams[n]
		if !ok {
			continue
		}
		v, bad := 0.0, 0
		for _, m := range f.GetMetric() {
			var x float64
			switch {
			case m.GetGauge() != nil:
				x = m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				x = m.GetCounter().GetValue()
			case m.GetUntyped() != nil:
				x = m.GetUntyped().GetValue()
			default:
				continue
			}
			if !valid(x, max) {
				bad++
				continue
			}
			v += x
		}
		if bad == 0 && !valid(v, max) {
			bad = 1 // every part in range, the sum not (several caches over 1)
		}
		if bad > 0 {
			*rejected += bad
			return nil
		}
		return &v
	}
	return nil
}

// maxCount is the largest histogram count or sum taken as real: above 2^53
// a float64 no longer counts one by one.
const maxCount = 1 << 53

func histogramSum(fams map[string]*dto.MetricFamily, names []string, rejected *int) (sum, count float64, ok bool) {
	for _, n := range names {
		f, found := fams[n]
		if !found {
			continue
		}
		bad := 0
		for _, m := range f.GetMetric() {
			s, c := m.GetHistogram().GetSampleSum(), float64(m.GetHistogram().GetSampleCount())
			if !valid(s, maxCount) || !valid(c, maxCount) {
				bad++
				continue
			}
			sum += s
			count += c
		}
		if bad > 0 {
			*rejected += bad
			return 0, 0, false
		}
		return sum, count, true
	}
	return 0, 0, false
}

// prefixOf reads the first pair of prefix-cache counters the page has both
// of (nil, nil: none, or a value out of range, counted in rejected, or more
// hits than queries).
func prefixOf(fams map[string]*dto.MetricFamily, rejected *int) (queries, hits *float64) {
	for _, p := range PrefixNames {
		if fams[p[0]] == nil || fams[p[1]] == nil {
			continue
		}
		q := gaugeSum(fams, p[:1], maxCount, rejected)
		h := gaugeSum(fams, p[1:], maxCount, rejected)
		if q == nil || h == nil {
			return nil, nil
		}
		if *h > *q {
			*rejected++
			return nil, nil
		}
		return q, h
	}
	return nil, nil
}
