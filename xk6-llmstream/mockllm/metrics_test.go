package mockllm

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrapeMetrics reads the mock's /metrics with Prometheus' own parser.
func scrapeMetrics(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct == "" {
		t.Error("no Content-Type")
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("not the Prometheus text format: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			if m.GetLabel()[0].GetName() != "model_name" {
				t.Errorf("%s: label %q, want model_name", name, m.GetLabel()[0].GetName())
			}
			switch {
			case m.GetGauge() != nil:
				out[name] += m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				out[name] += m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				out[name+"_count"] += float64(m.GetHistogram().GetSampleCount())
				b := m.GetHistogram().GetBucket()
				out[name+"_last_bucket"] += float64(b[len(b)-1].GetCumulativeCount())
			}
		}
	}
	return out
}

// TestMetricsEndpoint: with 2 slots and 3 streams that hold their slot after
// the first token, /metrics says 2 running, 1 waiting, the slots full, and 2
// first tokens in the TTFT histogram; once they are gone, 0 running and
// waiting, and the histogram never counts down.
func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Slots: 2, Default: ModelConfig{ITL: ITL{Base: time.Hour}}})
	idle := scrapeMetrics(t, url)
	if idle[PromRunning] != 0 || idle[PromWaiting] != 0 || idle[PromCacheUsage] != 0 || idle[PromTTFT+"_count"] != 0 {
		t.Errorf("idle: %v", idle)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { postCtx(t, ctx, testClient, url+"/v1/chat/completions", chatBody("", 50, "")) })
	}
	var m map[string]float64
	for {
		m = scrapeMetrics(t, url)
		if m[PromRunning] == 2 && m[PromWaiting] == 1 && m[PromTTFT+"_count"] == 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if m[PromCacheUsage] != 1 || m[PromKVUsage] != 1 || m[PromTTFT+"_last_bucket"] != 2 {
		t.Errorf("loaded: %v", m)
	}
	cancel()
	wg.Wait()
	for {
		m = scrapeMetrics(t, url)
		if m[PromRunning] == 0 && m[PromWaiting] == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if c := m[PromTTFT+"_count"]; c < 2 || c > 3 { // the waiter may get a slot before it sees the cancel
		t.Errorf("after: %v", m)
	}
}
