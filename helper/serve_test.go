package helper

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/records"
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
