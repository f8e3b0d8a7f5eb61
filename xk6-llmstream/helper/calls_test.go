package helper

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
)

// TestEndToEndCalls: an embeddings and a rerank call through the helper
// against the mock: the answer's samples are the llm_embed_* or llm_rerank_*
// metrics (no generation metric), with the input tokens and batch the mock
// counted (words; the query once per document for rerank) and a duration at
// least the mock's modeled latency; the key appears nowhere.
func TestEndToEndCalls(t *testing.T) {
	t.Parallel()
	const base, perToken = 2 * time.Millisecond, 100 * time.Microsecond
	mock := startMock(t, mockllm.Config{APIKey: testKey, Calls: mockllm.CallLatency{Base: base, PerToken: perToken}})
	h := startHelper(t)
	docs := []any{"alpha beta", "gamma", "delta epsilon zeta"} // 6 words
	for _, tc := range []struct {
		api, path                                 string
		body                                      map[string]any
		duration, tokens, batch, failed, notThere string
		wantTokens                                int
	}{
		{"openai-embeddings", "/v1/embeddings", map[string]any{"model": "e", "input": docs},
			metrics.EmbedDuration, metrics.EmbedInputTokens, metrics.EmbedBatchSize, metrics.EmbedFailed, metrics.RerankDuration, 6},
		{"cohere-embed", "/v2/embed", map[string]any{"model": "e", "texts": docs, "input_type": "search_document", "embedding_types": []any{"float"}},
			metrics.EmbedDuration, metrics.EmbedInputTokens, metrics.EmbedBatchSize, metrics.EmbedFailed, metrics.RerankDuration, 6},
		{"rerank", "/v1/rerank", map[string]any{"model": "r", "query": "which one", "documents": docs},
			metrics.RerankDuration, metrics.RerankInputTokens, metrics.RerankDocuments, metrics.RerankFailed, metrics.EmbedDuration, 6 + 2*3},
	} {
		t.Run(tc.api, func(t *testing.T) {
			t.Parallel()
			code, a, raw := streamVia(t, h.URL(), map[string]any{"url": mock + tc.path, "api": tc.api, "body": tc.body,
				"headers": map[string]string{"Authorization": "Bearer " + testKey}})
			if code != 200 || !a.OK {
				t.Fatalf("code %d: %s", code, raw)
			}
			if strings.Contains(raw, testKey) {
				t.Fatal("the answer holds the key")
			}
			if a.Kind == "" || a.Batch != 3 || a.Results != 3 || a.API != tc.api {
				t.Errorf("kind %q batch %d results %d api %q", a.Kind, a.Batch, a.Results, a.API)
			}
			d, ok := a.Value(tc.duration)
			if model := metrics.MS(int64(base + time.Duration(tc.wantTokens)*perToken)); !ok || d < model {
				t.Errorf("%s = %v (%v), want at least the modeled %v ms", tc.duration, d, ok, model)
			}
			if v, _ := a.Value(tc.tokens); v != float64(tc.wantTokens) {
				t.Errorf("%s = %v, the mock counted %d", tc.tokens, v, tc.wantTokens)
			}
			if v, _ := a.Value(tc.batch); v != 3 {
				t.Errorf("%s = %v, want 3", tc.batch, v)
			}
			if v, ok := a.Value(tc.failed); !ok || v != 0 {
				t.Errorf("%s = %v (%v), want 0", tc.failed, v, ok)
			}
			for _, m := range []string{metrics.TTFT, metrics.E2E, metrics.RequestsFailed, metrics.OutputTokens, tc.notThere} {
				if _, ok := a.Value(m); ok {
					t.Errorf("a call's answer has %s", m)
				}
			}
		})
	}
	t.Run("failure", func(t *testing.T) {
		t.Parallel()
		code, a, raw := streamVia(t, h.URL(), map[string]any{"url": mock + "/v1/embeddings", "api": "openai-embeddings",
			"body": map[string]any{"model": "e", "input": docs}})
		if code == 0 || a.OK || a.Tags.Error != "http_401" {
			t.Fatalf("code %d: %s", code, raw)
		}
		if v, ok := a.Value(metrics.EmbedFailed); !ok || v != 1 {
			t.Errorf("llm_embed_failed = %v (%v), want 1", v, ok)
		}
	})
}

// TestRecordsGPU: with a sampler of the mock's DCGM-like page, a request
// that starts while one call holds the only slot's worth of load is
// recorded with the GPU at 100% ± 1 and the power in proportion; a request
// of a helper without the sampler has no GPU.
func TestRecordsGPU(t *testing.T) {
	t.Parallel()
	cfg := fixedMock()
	cfg.Slots = 1
	cfg.Calls = mockllm.CallLatency{Base: time.Hour}
	mock := startMock(t, cfg)
	sampler, err := serverstats.StartSampler(mock+"/dcgm/metrics", time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer sampler.Stop()
	var buf bytes.Buffer
	rw := records.NewWriter(&buf, false, records.Options{})
	s := startHelper(t, WithRecords(rw), WithGPUSampler(sampler))
	plain := startHelper(t, WithRecords(rw))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { // holds the GPU busy until the cancel
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, mock+"/v1/embeddings", strings.NewReader(`{"model":"e","input":"x"}`))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	for l := sampler.Latest(); l == nil || l.GPU == nil || *l.GPU.Util < 99; l = sampler.Latest() {
		time.Sleep(time.Millisecond)
	}
	req := map[string]any{"url": mock + "/v1/chat/completions",
		"body": map[string]any{"model": "m", "max_tokens": 2, "messages": []any{map[string]any{"role": "user", "content": "hi"}}}}
	if status, a, raw := streamVia(t, s.URL(), req); status != 200 || !a.OK {
		t.Fatalf("%d %s", status, raw)
	}
	cancel()
	<-done
	if status, _, raw := streamVia(t, plain.URL(), req); status != 200 {
		t.Fatalf("%d %s", status, raw)
	}
	for _, h := range []*Server{s, plain} {
		if err := h.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	var got []*records.GPU
	if _, err := records.Scan(&buf, func(r *records.Record) error { got = append(got, r.GPU); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] == nil || got[1] != nil {
		t.Fatalf("GPU of the records: %v", got)
	}
	g := got[0]
	if g.GPUs != 1 || g.UtilPct == nil || *g.UtilPct < 99 || g.PowerW == nil || *g.PowerW < mockllm.GPUMaxW-(mockllm.GPUMaxW-mockllm.GPUIdleW)/100 || g.MemUsedMiB == nil || g.SMClockMHz == nil {
		t.Errorf("GPU %+v", g)
	}
}
