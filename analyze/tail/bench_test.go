package tail

import (
	"testing"
	"time"
)

// BenchmarkAnalyze1M prints the time to attribute the tail of 1 M requests
// (go test ./analyze/tail -run '^$' -bench . -benchtime 1x).
func BenchmarkAnalyze1M(b *testing.B) {
	reqs := synth(1_000_000, 1, &causes[4])
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		res, err := Analyze(reqs, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("attributed the tail of %d requests (%d above P99) in %v", res.Requests, res.TailCount, time.Since(start).Round(time.Millisecond))
	}
}
