package mockllm

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestVectorsAreDeterministicUnitVectors: the same text has the same vector
// in every server and run; different texts differ; every vector has length 1.
func TestVectorsAreDeterministicUnitVectors(t *testing.T) {
	t.Parallel()
	a, b, c := Vector("hello", 32), Vector("hello", 32), Vector("goodbye", 32)
	norm := 0.0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("component %d: %v then %v", i, a[i], b[i])
		}
		norm += a[i] * a[i]
	}
	if math.Abs(norm-1) > 1e-12 {
		t.Errorf("squared norm %v, want 1", norm)
	}
	if a[0] == c[0] && a[1] == c[1] {
		t.Error("two texts share a vector")
	}
}

// TestCallAnswersCarryTheirGroundTruth: the answer's x_mock holds the input
// tokens counted (words; rerank adds the query once per document), the batch
// and the modeled delay (base + per token, no jitter), and top_n cuts the
// ranking.
func TestCallAnswersCarryTheirGroundTruth(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Calls: CallLatency{Base: time.Millisecond, PerToken: time.Microsecond, Dims: 4}})
	res := post(t, url+"/v1/embeddings", `{"model":"m","input":["a b c","d"]}`)
	var emb struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
		X CallTruth `json:"x_mock"`
	}
	if err := json.Unmarshal([]byte(res.body), &emb); err != nil || res.status != 200 {
		t.Fatalf("%d %s: %v", res.status, res.body, err)
	}
	if len(emb.Data) != 2 || len(emb.Data[0].Embedding) != 4 || emb.Usage.PromptTokens != 4 || emb.X.InputTokens != 4 || emb.X.Batch != 2 || emb.X.DelayNS != int64(time.Millisecond+4*time.Microsecond) {
		t.Errorf("answer %s", res.body)
	}
	res = post(t, url+"/v2/rerank", `{"model":"m","query":"q r","documents":["a","b c","d"],"top_n":2}`)
	var rr struct {
		Results []struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		} `json:"results"`
		X CallTruth `json:"x_mock"`
	}
	if err := json.Unmarshal([]byte(res.body), &rr); err != nil {
		t.Fatal(err)
	}
	if len(rr.Results) != 2 || rr.Results[0].Score < rr.Results[1].Score || rr.X.InputTokens != 4+2*3 || rr.X.Batch != 3 {
		t.Errorf("answer %s", res.body)
	}
}

// scrapeGPU reads the mock's GPU page with the Prometheus parser.
func scrapeGPU(t *testing.T, url string) map[string][]float64 {
	t.Helper()
	resp, err := testClient.Get(url + "/dcgm/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	out := map[string][]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			out[name] = append(out[name], m.GetGauge().GetValue())
		}
	}
	return out
}

// TestGPUPageFollowsLoad: idle, each GPU shows about 0% and idle power;
// with one of two slots' worth of calls in flight, about 50% and the power
// in proportion; the page carries dcgm-exporter's four names per GPU.
func TestGPUPageFollowsLoad(t *testing.T) {
	t.Parallel()
	srv, url := startServer(t, Config{Slots: 2, GPUs: 2, Calls: CallLatency{Base: time.Hour}})
	idle := scrapeGPU(t, url)
	for _, name := range []string{DCGMUtil, DCGMFBUsed, DCGMPower, DCGMSMClock} {
		if len(idle[name]) != 2 {
			t.Fatalf("%s: %v, want one value per GPU", name, idle[name])
		}
	}
	if idle[DCGMUtil][0] > 1 || idle[DCGMPower][0] > GPUIdleW+(GPUMaxW-GPUIdleW)/100 {
		t.Errorf("idle: util %v power %v", idle[DCGMUtil], idle[DCGMPower])
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/embeddings", strings.NewReader(`{"model":"m","input":"x"}`))
		if resp, err := testClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	for {
		if _, n := srv.GPULoad(); n == 1 {
			break
		}
		runtime.Gosched()
	}
	busy := scrapeGPU(t, url)
	cancel()
	<-done
	for i, u := range busy[DCGMUtil] {
		if u < 49 || u > 51 {
			t.Errorf("GPU %d: util %v with 1 of 2 slots busy, want 50 ± 1", i, u)
		}
		if p, want := busy[DCGMPower][i], GPUIdleW+(GPUMaxW-GPUIdleW)*0.5; math.Abs(p-want) > (GPUMaxW-GPUIdleW)/100 {
			t.Errorf("GPU %d: power %v, want %v ± 1%%", i, p, want)
		}
	}
}
