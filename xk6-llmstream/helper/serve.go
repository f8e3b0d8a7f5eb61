package helper

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
)

// ServeConfig is one helper process's set-up: where it listens, its options,
// and the records file and server scrape it owns. The helper command and
// `xk6-llmstream run` both serve through it.
type ServeConfig struct {
	// Addr is where to listen (DefaultAddr when empty).
	Addr string
	// Options configure the Handler (token, allow-list, timeouts, logger, ...).
	Options []Option
	// Records is a file to write one record per request to; empty writes none.
	Records string
	// RecordsOverwrite lets Records replace a file that is not a records file.
	RecordsOverwrite bool
	// OnRecordsError is told when writing Records fails (the records from
	// then on are lost and counted; Serve's error reports it at the end).
	OnRecordsError func(error)
	// Scrape is a Prometheus /metrics URL scraped every ScrapeInterval
	// (serverstats.DefaultInterval when 0) so that each record carries the
	// server's queue depth; it needs Records. Empty scrapes nothing.
	Scrape         string
	ScrapeInterval time.Duration
	ScrapeOptions  []serverstats.Option
	// GPUMetrics is an NVIDIA DCGM exporter's /metrics URL scraped like
	// Scrape (same interval and options) so that each record carries the
	// GPUs' state (records.GPU); it needs Records. Empty scrapes nothing.
	GPUMetrics string
	// Grace is how long running streams may finish once ctx ends before they
	// are canceled (and answered as canceled).
	Grace time.Duration
	// Ready is called once the helper listens; an error stops it and is
	// returned by Serve.
	Ready func(*Server) error
}

// Served is what a helper did, read once it has stopped.
type Served struct {
	URL      string
	Stats    Stats
	Failures []FailureKind
	Health   Health
	// Records sums up the records file ("" without one).
	Records string
	// Scrapes counts the scrapes (zero without Scrape), GPUScrapes those
	// of GPUMetrics.
	Scrapes    serverstats.SamplerStats
	GPUScrapes serverstats.SamplerStats
}

// ErrGPUMetricsNeedsRecords is returned for GPUMetrics without Records.
var ErrGPUMetricsNeedsRecords = errors.New("--gpu-metrics needs --records: it stamps each record with the GPUs' state")

// ErrGPUMetrics marks Serve's errors of GPUMetrics (a refused URL, ...).
var ErrGPUMetrics = errors.New("--gpu-metrics")

// ErrScrapeNeedsRecords is returned for a Scrape without Records: the scrape
// exists to stamp each record with the server's queue depth.
var ErrScrapeNeedsRecords = errors.New("--scrape needs --records: it stamps each record with the server's queue depth")

// Serve starts the helper with cfg, owns its records writer and server
// sampler, serves until ctx ends (or the serve loop fails), then shuts down
// with cfg.Grace, closes the records and stops the sampler. The error joins
// a serve failure, a shutdown that cut streams and a records file that could
// not be written; Served is filled whenever the helper had started.
func Serve(ctx context.Context, cfg ServeConfig) (Served, error) {
	var out Served
	if cfg.Scrape != "" && cfg.Records == "" {
		return out, ErrScrapeNeedsRecords
	}
	if cfg.GPUMetrics != "" && cfg.Records == "" {
		return out, ErrGPUMetricsNeedsRecords
	}
	sampler, gpuSampler, sopts, err := startSamplers(cfg, &out)
	if err != nil {
		return out, err
	}
	opts := append(append([]Option(nil), cfg.Options...), sopts...)
	stopSampler := func() { out.Scrapes, out.GPUScrapes = sampler.Stop(), gpuSampler.Stop() }
	var rw *records.Writer
	if cfg.Records != "" {
		w, err := OpenRecords(cfg.Records, RecordsOptions{Overwrite: cfg.RecordsOverwrite, OnError: cfg.OnRecordsError})
		if err != nil {
			stopSampler()
			return out, err
		}
		rw = w
		opts = append(opts, WithRecords(w))
	}
	closeRecords := func() error {
		msg, err := CloseRecords(rw)
		out.Records = msg
		return err
	}
	srv, err := Start(cfg.Addr, opts...)
	if err != nil {
		stopSampler()
		_ = closeRecords()
		return out, err
	}
	out.URL = srv.URL()
	var readyErr error
	if cfg.Ready != nil {
		readyErr = cfg.Ready(srv)
	}
	if readyErr == nil {
		select {
		case <-ctx.Done():
		case <-srv.Done():
		}
	}
	serveErr := srv.ServeErr()
	graceCtx, cancel := context.WithTimeout(context.Background(), cfg.Grace)
	defer cancel()
	shutErr := srv.Shutdown(graceCtx)
	h := srv.Handler()
	out.Stats, out.Failures, out.Health = h.Stats(), h.Failures(), h.Health()
	stopSampler() // after the shutdown: every record has its stamp
	recErr := closeRecords()
	if serveErr != nil {
		serveErr = fmt.Errorf("helper stopped: %w", serveErr)
	}
	return out, errors.Join(readyErr, serveErr, shutErr, recErr)
}

// startSamplers starts the samplers of cfg's GPUMetrics and Scrape (nil when
// not asked for) and returns the options that give them to the handler. On
// an error none runs; a GPU sampler already started is stopped, its counts
// in out.
func startSamplers(cfg ServeConfig, out *Served) (sampler, gpuSampler *serverstats.Sampler, opts []Option, err error) {
	every := cfg.ScrapeInterval
	if every == 0 {
		every = serverstats.DefaultInterval
	}
	if cfg.GPUMetrics != "" {
		if err := serverstats.CheckURL("--gpu-metrics", cfg.GPUMetrics); err != nil {
			return nil, nil, nil, fmt.Errorf("%w: %w", ErrGPUMetrics, err)
		}
		s, err := serverstats.StartSampler(cfg.GPUMetrics, every, cfg.ScrapeOptions...)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: %w", ErrGPUMetrics, err)
		}
		gpuSampler = s
		opts = append(opts, WithGPUSampler(s))
	}
	if cfg.Scrape != "" {
		if err := serverstats.CheckURL("--scrape", cfg.Scrape); err != nil {
			out.GPUScrapes = gpuSampler.Stop()
			return nil, nil, nil, err
		}
		s, err := serverstats.StartSampler(cfg.Scrape, every, cfg.ScrapeOptions...)
		if err != nil {
			out.GPUScrapes = gpuSampler.Stop()
			return nil, nil, nil, err
		}
		sampler = s
		opts = append(opts, WithServerSampler(s))
	}
	return sampler, gpuSampler, opts, nil
}
