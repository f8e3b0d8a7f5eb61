package moduletest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

// BenchmarkModuleRequest measures what one chat() costs the VU besides the
// stream itself: the hop to a fake helper that answers at once, decoding the
// record, and adding the samples (one llm_itl sample per gap). It runs under
// k6sim, whose JavaScript engine (sobek) is the one k6 uses.
//
//	go test ./xk6-llmstream/moduletest -run '^$' -bench ModuleRequest -benchtime 200x
func BenchmarkModuleRequest(b *testing.B) {
	for _, gaps := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("gaps=%d", gaps), func(b *testing.B) {
			itl := make([]float64, gaps)
			for i := range itl {
				itl[i] = 20 + float64(i%7)/8
			}
			h := newFakeHelper(b, map[string]answer{
				"x": {status: 200, body: recordJSON(with(okRecord(), "itl_ms", itl, "output_tokens", gaps+1))},
			})
			path := script(b, `
const llm = new Client({ baseURL: 'http://h:1' });
export default function () { llm.chat('x'); }
`)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			res, err := k6sim.Run(context.Background(), k6sim.Config{
				Script: path, Env: map[string]string{"LLMSTREAM_HELPER": h.srv.URL}, Iterations: b.N,
			})
			elapsed := time.Since(start)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if err := res.Err(); err != nil {
				b.Fatal(err)
			}
			if n := len(res.Of("llm_itl")); n != gaps*b.N {
				b.Fatalf("%d llm_itl samples, want %d", n, gaps*b.N)
			}
			b.ReportMetric(float64(elapsed.Microseconds())/float64(b.N), "µs/request")
			b.ReportMetric(float64(len(res.Samples))/elapsed.Seconds(), "samples/s")
		})
	}
}
