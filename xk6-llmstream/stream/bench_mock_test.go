package stream_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// BenchmarkClientDoMock measures Client.Do against the mock LLM (no latency,
// 1,000 output tokens a request) in every dialect it serves: events/s and ns
// per event through HTTP, timing and decoding, the mock's own encoding
// included. The newer dialects should stay within 2× of openai-chat's cost
// per event.
//
//	go test -run '^$' -bench ClientDoMock -benchtime 200x ./stream
func BenchmarkClientDoMock(b *testing.B) {
	const tokens = 1000
	m, err := mockllm.New(mockllm.Config{Default: mockllm.ModelConfig{OutputTokens: mockllm.FixedCount(tokens)}})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(m)
	defer srv.Close()
	defer m.Close()
	msgs := `"messages":[{"role":"user","content":"Explain TTFT"}]`
	for _, bc := range []struct{ api, path, body string }{
		{"openai-chat", "/v1/chat/completions", `{"model":"m",` + msgs + `}`},
		{"openai-responses", "/v1/responses", `{"model":"m","input":"Explain TTFT"}`},
		{"gemini", "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"Explain TTFT"}]}]}`},
		{"cohere", "/v2/chat", `{"model":"m",` + msgs + `}`},
		{"ollama", "/api/chat", `{"model":"m",` + msgs + `}`},
	} {
		b.Run(bc.api, func(b *testing.B) {
			c := stream.NewClient()
			defer c.CloseIdleConnections()
			req := &stream.Request{URL: srv.URL + bc.path, Dialect: stream.Dialect(bc.api), Body: []byte(bc.body)}
			events := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec := c.Do(context.Background(), req)
				if rec.Err != nil || rec.OutputTokens != tokens {
					b.Fatalf("Do: %v, %d tokens", rec.Err, rec.OutputTokens)
				}
				events += rec.Events
			}
			b.StopTimer()
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}
