package stream

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// runtimeMem snapshots the allocation counter and the process's CPU time.
type runtimeMem struct {
	mallocs uint64
	cpu     time.Duration
}

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.mallocs = ms.Mallocs
	m.cpu = processCPU()
}

// reportRates reports events per wall-clock second, events per CPU second of
// the whole process (when measurable) and allocations per event.
func reportRates(b *testing.B, events int, m0, m1 runtimeMem) {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	if cpu := m1.cpu - m0.cpu; cpu > 0 {
		b.ReportMetric(float64(events)/cpu.Seconds(), "events/cpu-s")
	}
	b.ReportMetric(float64(m1.mallocs-m0.mallocs)/float64(events), "allocs/event")
}

// BenchmarkDecodeOpenAIChat measures the whole decode of an OpenAI chat
// stream (SSE reader, JSON decoding, record building) from memory. It reports
// events/s and allocations per event.
func BenchmarkDecodeOpenAIChat(b *testing.B) {
	const n = 1000
	data := benchStream(n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ms0, ms1 runtimeMem
	ms0.read()
	events := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec, err := Decode(bytes.NewReader(data), OpenAIChat)
		if err != nil || rec.Err != nil || rec.Events != n {
			b.Fatalf("decode: %v %v, %d events", err, rec.Err, rec.Events)
		}
		events += rec.Events
	}
	b.StopTimer()
	ms1.read()
	reportRates(b, events, ms0, ms1)
}

// BenchmarkClientLoopback measures Client.Do end to end against a loopback
// server that writes a 1,000-event OpenAI chat stream at once: requests/s and
// events/s through HTTP, timing and decoding (server costs included).
func BenchmarkClientLoopback(b *testing.B) {
	const n = 1000
	data := benchStream(n)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	c := NewClient()
	defer c.CloseIdleConnections()
	req := &Request{URL: srv.URL + "/v1/chat/completions", Body: []byte(`{"model":"m","messages":[]}`)}
	b.ReportAllocs()
	var ms0, ms1 runtimeMem
	ms0.read()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := c.Do(context.Background(), req)
		if rec.Err != nil || rec.Events != n {
			b.Fatalf("Do: %v, %d events", rec.Err, rec.Events)
		}
	}
	b.StopTimer()
	ms1.read()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	reportRates(b, b.N*n, ms0, ms1)
}
