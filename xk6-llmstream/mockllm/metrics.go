package mockllm

import (
	"net/http"
	"sync/atomic"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// The vLLM metric names the mock's /metrics serves (vLLM's own, so a scraper
// written for vLLM reads the mock unchanged).
const (
	PromRunning    = "vllm:num_requests_running"
	PromWaiting    = "vllm:num_requests_waiting"
	PromCacheUsage = "vllm:gpu_cache_usage_perc"
	PromKVUsage    = "vllm:kv_cache_usage_perc" // vLLM v1's name for the same
	PromTTFT       = "vllm:time_to_first_token_seconds"
	// The prefix cache's counters, in prompt tokens (vLLM v1's names, from
	// vllm/v1/metrics/loggers.py; the text format adds _total), served
	// when the prefix cache is on.
	PromPrefixQueries = "vllm:prefix_cache_queries"
	PromPrefixHits    = "vllm:prefix_cache_hits"
)

// TTFTBuckets are the upper bounds (seconds) of the TTFT histogram: vLLM's.
var TTFTBuckets = [...]float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
	1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}

// promHistogram is a concurrent cumulative histogram of TTFTBuckets.
type promHistogram struct {
	counts [len(TTFTBuckets) + 1]atomic.Int64 // per bucket, not cumulative; the last is +Inf
	sumNS  atomic.Int64
	n      atomic.Int64
}

// observe adds one time to the first token.
func (h *promHistogram) observe(d time.Duration) {
	s := d.Seconds()
	i := 0
	for i < len(TTFTBuckets) && s > TTFTBuckets[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sumNS.Add(int64(d))
	h.n.Add(1)
}

// serveMetrics answers GET /metrics in the Prometheus text format with the
// vLLM gauges and histogram: requests holding a decode slot (running) and
// waiting for one, the share of slots in use standing in for the KV-cache
// usage (0 with unlimited slots: the mock has no cache to fill), and the
// time from arrival to the first token of each streamed request.
func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	st := s.Stats()
	usage := 0.0
	if slots := s.cfg.Slots * len(s.allPools()); slots > 0 {
		usage = float64(st.Active) / float64(slots)
	}
	model := s.cfg.ModelNames()[0]
	fams := []*dto.MetricFamily{
		gauge(PromRunning, "Number of requests in model execution batches.", model, float64(st.Active)),
		gauge(PromWaiting, "Number of requests waiting to be processed.", model, float64(st.Waiting)),
		gauge(PromCacheUsage, "GPU KV-cache usage. 1 means 100 percent usage (mock: share of decode slots in use).", model, usage),
		gauge(PromKVUsage, "KV-cache usage. 1 means 100 percent usage (mock: share of decode slots in use).", model, usage),
		s.counters.ttft.family(model),
	}
	if c := s.prefix; c != nil {
		fams = append(fams, counter(PromPrefixQueries+"_total", "Prefix cache queries, in prompt tokens.", model, float64(c.queries.Load())),
			counter(PromPrefixHits+"_total", "Prefix cache hits, in cached prompt tokens.", model, float64(c.hits.Load())))
	}
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	w.Header().Set("Content-Type", string(format))
	enc := expfmt.NewEncoder(w, format)
	for _, f := range fams {
		if err := enc.Encode(f); err != nil {
			return // the client went away
		}
	}
}

func labels(model string) []*dto.LabelPair {
	return []*dto.LabelPair{{Name: proto.String("model_name"), Value: proto.String(model)}}
}

func gauge(name, help, model string, v float64) *dto.MetricFamily {
	return &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_GAUGE.Enum(),
		Metric: []*dto.Metric{{Label: labels(model), Gauge: &dto.Gauge{Value: proto.Float64(v)}}}}
}

func counter(name, help, model string, v float64) *dto.MetricFamily {
	return &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_COUNTER.Enum(),
		Metric: []*dto.Metric{{Label: labels(model), Counter: &dto.Counter{Value: proto.Float64(v)}}}}
}

func (h *promHistogram) family(model string) *dto.MetricFamily {
	hist := &dto.Histogram{SampleCount: proto.Uint64(uint64(h.n.Load())),
		SampleSum: proto.Float64(time.Duration(h.sumNS.Load()).Seconds())}
	var cum uint64
	for i, ub := range TTFTBuckets {
		cum += uint64(h.counts[i].Load())
		hist.Bucket = append(hist.Bucket, &dto.Bucket{UpperBound: proto.Float64(ub), CumulativeCount: proto.Uint64(cum)})
	}
	return &dto.MetricFamily{Name: proto.String(PromTTFT), Help: proto.String("Histogram of time to first token in seconds."),
		Type: dto.MetricType_HISTOGRAM.Enum(), Metric: []*dto.Metric{{Label: labels(model), Histogram: hist}}}
}
