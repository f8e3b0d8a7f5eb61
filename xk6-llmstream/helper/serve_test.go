package helper

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
)

// TestServeOwnsRecordsAndSampler serves until the second scrape has
// arrived (so the first one is done and counted), then ends ctx: the records file is closed and valid, the sampler
// stopped with its scrape counted, and the listener is gone.
func TestServeOwnsRecordsAndSampler(t *testing.T) {
	scraped := make(chan struct{})
	var mu sync.Mutex
	n := 0
	metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if n++; n == 2 {
			close(scraped)
		}
		mu.Unlock()
		_, _ = w.Write([]byte("vllm:num_requests_waiting 3\nvllm:num_requests_running 1\n"))
	}))
	defer metrics.Close()
	path := filepath.Join(t.TempDir(), "run.records.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var addr string
	served, err := Serve(ctx, ServeConfig{
		Addr:    "127.0.0.1:0",
		Records: path,
		Scrape:  metrics.URL + "/metrics",
		// The next scrape starts 1 ms after one ends.
		ScrapeInterval: time.Millisecond,
		Grace:          time.Second,
		Ready: func(s *Server) error {
			addr = s.Addr().String()
			<-scraped
			cancel()
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if served.URL == "" || !strings.Contains(served.URL, addr) {
		t.Errorf("Served.URL %q, listened at %s", served.URL, addr)
	}
	if served.Scrapes.Scrapes+served.Scrapes.Errors < 1 {
		t.Errorf("Served.Scrapes %+v: the first scrape is not counted", served.Scrapes)
	}
	if !strings.HasPrefix(served.Records, "0 record(s) written") {
		t.Errorf("Served.Records %q", served.Records)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := records.Scan(f, func(*records.Record) error { return nil }); err != nil {
		t.Errorf("the records file Serve closed does not read back: %v", err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("the helper still listens at %s after Serve returned", addr)
	}
}

// TestServeReadyErrorStops returns Ready's error and stops serving.
func TestServeReadyErrorStops(t *testing.T) {
	boom := errors.New("cannot announce the URL")
	var addr string
	_, err := Serve(context.Background(), ServeConfig{
		Addr:  "127.0.0.1:0",
		Grace: time.Second,
		Ready: func(s *Server) error { addr = s.Addr().String(); return boom },
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Serve returned %v, want Ready's error", err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("the helper still listens at %s", addr)
	}
}

// TestServeScrapeNeedsRecords refuses a scrape without a records file before
// listening.
func TestServeScrapeNeedsRecords(t *testing.T) {
	served, err := Serve(context.Background(), ServeConfig{
		Addr:   "127.0.0.1:0",
		Scrape: "http://127.0.0.1:9/metrics",
		Ready:  func(*Server) error { t.Error("Serve listened"); return nil },
	})
	if !errors.Is(err, ErrScrapeNeedsRecords) || served.URL != "" {
		t.Errorf("Serve = %+v, %v; want ErrScrapeNeedsRecords before listening", served, err)
	}
}

// TestServeGPUMetrics: GPUMetrics without a records file is refused before
// listening; with one, the GPU sampler runs (its scrapes counted) and a
// refused URL is an error marked ErrGPUMetrics.
func TestServeGPUMetrics(t *testing.T) {
	served, err := Serve(context.Background(), ServeConfig{
		Addr: "127.0.0.1:0", GPUMetrics: "http://127.0.0.1:9/metrics",
		Ready: func(*Server) error { t.Error("Serve listened"); return nil },
	})
	if !errors.Is(err, ErrGPUMetricsNeedsRecords) || served.URL != "" {
		t.Errorf("Serve = %+v, %v; want ErrGPUMetricsNeedsRecords before listening", served, err)
	}
	_, err = Serve(context.Background(), ServeConfig{
		Addr: "127.0.0.1:0", Records: filepath.Join(t.TempDir(), "r.jsonl"), GPUMetrics: "http://127.0.0.1:9/metrics",
		ScrapeOptions: []serverstats.Option{serverstats.WithAllow(func(*url.URL) bool { return false })},
		Ready:         func(*Server) error { t.Error("Serve listened"); return nil },
	})
	if !errors.Is(err, ErrGPUMetrics) || !errors.Is(err, serverstats.ErrRefused) {
		t.Errorf("refused URL: %v", err)
	}
	scraped := make(chan struct{}) // closed at the second scrape: the first is counted
	var mu sync.Mutex
	n := 0
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if n++; n == 2 {
			close(scraped)
		}
		mu.Unlock()
		_, _ = w.Write([]byte("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 40\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300\n"))
	}))
	defer page.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served, err = Serve(ctx, ServeConfig{
		Addr: "127.0.0.1:0", Records: filepath.Join(t.TempDir(), "r.jsonl"), GPUMetrics: page.URL + "/metrics",
		ScrapeInterval: time.Millisecond, Grace: time.Second,
		Ready: func(*Server) error { <-scraped; cancel(); return nil },
	})
	if err != nil || served.GPUScrapes.Scrapes < 1 || served.Scrapes.Scrapes != 0 {
		t.Errorf("Serve = %+v, %v; want GPU scrapes counted, no server scrapes", served, err)
	}
}
