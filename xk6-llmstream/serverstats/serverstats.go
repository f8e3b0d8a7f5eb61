// Package serverstats reads an inference server's own view of its load from
// its Prometheus /metrics: requests running (in the batch) and waiting
// (queued), KV-cache usage and the server's TTFT histogram, under the metric
// names of vLLM, SGLang, TGI and llama.cpp (and the mock, which serves
// vLLM's). The sweep reads it once per interval of a level; the helper's
// Sampler keeps the latest scrape for stamping each request's record.
package serverstats

import (
	"context"
	"fmt"
	"io"
	"net/http"

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
)

// Sample is one scrape; a signal the server does not export is nil.
type Sample struct {
	Running *float64 `json:"running"`
	Waiting *float64 `json:"waiting"`
	Cache   *float64 `json:"cache_usage"`
	// TTFTSum (s) and TTFTCount are the server's TTFT histogram's sum and
	// count (HasTTFT: the page has one).
	TTFTSum   float64 `json:"-"`
	TTFTCount float64 `json:"-"`
	HasTTFT   bool    `json:"-"`
}

// Fetch GETs one /metrics page and parses it.
func Fetch(ctx context.Context, c *http.Client, url string) (Sample, error) {
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
	s, err := Parse(resp.Body)
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w", url, err)
	}
	return s, nil
}

// Parse reads one page in the Prometheus text format (expfmt's parser).
func Parse(r io.Reader) (Sample, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Sample{}, err
	}
	s := Sample{Running: gaugeSum(fams, RunningNames), Waiting: gaugeSum(fams, WaitingNames), Cache: gaugeSum(fams, CacheNames)}
	s.TTFTSum, s.TTFTCount, s.HasTTFT = histogramSum(fams, TTFTNames)
	return s, nil
}

// gaugeSum adds up the first of the names the page has (nil: none).
func gaugeSum(fams map[string]*dto.MetricFamily, names []string) *float64 {
	for _, n := range names {
		f, ok := fams[n]
		if !ok {
			continue
		}
		v := 0.0
		for _, m := range f.GetMetric() {
			switch {
			case m.GetGauge() != nil:
				v += m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				v += m.GetCounter().GetValue()
			case m.GetUntyped() != nil:
				v += m.GetUntyped().GetValue()
			}
		}
		return &v
	}
	return nil
}

func histogramSum(fams map[string]*dto.MetricFamily, names []string) (sum, count float64, ok bool) {
	for _, n := range names {
		f, found := fams[n]
		if !found {
			continue
		}
		for _, m := range f.GetMetric() {
			sum += m.GetHistogram().GetSampleSum()
			count += float64(m.GetHistogram().GetSampleCount())
		}
		return sum, count, true
	}
	return 0, 0, false
}
