package records

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// BenchmarkWriterMemory2000Streams submits, from 2,000 goroutines (one per
// concurrent stream), records of 64 text events to a Writer writing a gzip
// file, and prints the peak heap growth per stream and the records written
// and dropped. Run it with
//
//	go test ./records -run '^$' -bench WriterMemory -benchtime 1x
func BenchmarkWriterMemory2000Streams(b *testing.B) {
	const streams, perStream = 2000, 20
	w, err := Create(filepath.Join(b.TempDir(), "r.jsonl.gz"), Options{Writer: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	text := make([]int64, 64)
	for i := range text {
		text[i] = 2_000_000 + int64(i)
	}
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	metrics.Read(heap)
	base := heap[0].Value.Uint64()
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				metrics.Read(heap)
				peak = max(peak, heap[0].Value.Uint64())
			}
		}
	}()
	t0 := time.Now()
	var wg sync.WaitGroup
	for s := range streams {
		wg.Go(func() {
			for i := range perStream {
				ttft := int64(50_000_000)
				w.Submit(&item{Record{V: Version, ID: fmt.Sprintf("%d-%d", s, i), StartNS: time.Now().UnixNano(),
					API: "openai-chat", Model: "bench", Status: 200, TTFTNS: &ttft, E2ENS: 180_000_000,
					TextNS: text, OutputTokens: 64, InputTokens: 12, TokenSource: "usage", Events: 67,
					Tags: map[string]string{"scenario": "bench"}}})
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	close(stop)
	<-sampled
	st := w.Stats()
	growth := int64(peak) - int64(base)
	fmt.Printf("records writer, %d concurrent streams × %d records of 64 text events (gzip): %d written, %d dropped, %.1f MB in %.2f s; peak heap growth %.1f MiB = %.0f bytes per stream (queue bound %d records / %d MiB)\n",
		streams, perStream, st.Written, st.Dropped, float64(st.Bytes)/1e6, time.Since(t0).Seconds(),
		float64(growth)/(1<<20), float64(growth)/streams, DefaultQueue, DefaultQueueBytes>>20)
	b.ReportMetric(float64(growth)/streams, "heap-bytes/stream")
	b.ReportMetric(float64(st.Dropped), "dropped")
}
