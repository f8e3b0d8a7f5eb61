package helper

import (
	"context"
	"crypto/x509"
	"io"
	"log/slog"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// Defaults of the helper. A request's own timeout_ms / idle_timeout_ms override
// DefaultTimeout and DefaultIdleTimeout.
const (
	// DefaultTimeout bounds a whole upstream request that did not set timeout_ms.
	DefaultTimeout = 10 * time.Minute
	// DefaultIdleTimeout bounds the wait for the next upstream bytes when a
	// request did not set idle_timeout_ms.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxBody caps the size of a request to POST /v1/stream.
	DefaultMaxBody int64 = 4 << 20
	// DefaultMaxText caps the text (and, separately, the reasoning) returned with
	// keep_text; longer text is cut at a character boundary and text_truncated is set.
	DefaultMaxText = 1 << 20
	// DefaultReadHeaderTimeout bounds reading a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultBodyReadTimeout bounds reading a request's body. (There is no write
	// timeout: a stream may legitimately last many minutes.)
	DefaultBodyReadTimeout = 30 * time.Second
	// DefaultIdleConnTimeout closes keep-alive connections from k6 that stay idle.
	DefaultIdleConnTimeout = 2 * time.Minute
)

// Streamer runs one streaming request and always returns its Record.
// *stream.Client is the Streamer the helper uses unless WithStreamer says otherwise.
type Streamer interface {
	Do(ctx context.Context, req *stream.Request) *stream.Record
}

// Option configures a Handler (and a Server started with it).
type Option func(*config)

type config struct {
	token           string
	allow           *AllowList
	streamer        Streamer
	timeout         time.Duration
	idleTimeout     time.Duration
	maxBody         int64
	maxText         int
	maxLine         int
	bodyReadTimeout time.Duration
	logger          *slog.Logger
	clockNow        func() time.Time
	clockSleep      func(time.Duration)
	readCPU         func() (headroom.CPUTimes, error)
	records         *records.Writer
	sampler         *serverstats.Sampler
	gpuSampler      *serverstats.Sampler
	rootCAs         *x509.CertPool
}

func newConfig(opts []Option) config {
	c := config{
		timeout:         DefaultTimeout,
		idleTimeout:     DefaultIdleTimeout,
		maxBody:         DefaultMaxBody,
		maxText:         DefaultMaxText,
		bodyReadTimeout: DefaultBodyReadTimeout,
		readCPU:         headroom.ReadCPU,
	}
	for _, o := range opts {
		o(&c)
	}
	if c.allow == nil {
		c.allow = &AllowList{}
	}
	if c.logger == nil {
		c.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.streamer == nil {
		c.streamer = newEngineClient(c)
	}
	return c
}

// WithToken requires every request to carry "Authorization: Bearer <token>".
// An empty token requires nothing (allowed only on loopback, see Start).
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithAllowList sets the upstream hosts allowed besides loopback.
func WithAllowList(a *AllowList) Option { return func(c *config) { c.allow = a } }

// WithStreamer replaces the streaming engine (for tests and benchmarks).
// The default is one shared *stream.Client for all requests.
func WithStreamer(s Streamer) Option { return func(c *config) { c.streamer = s } }

// WithTimeout sets the whole-request timeout for requests without timeout_ms.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithIdleTimeout sets the idle timeout for requests without idle_timeout_ms.
func WithIdleTimeout(d time.Duration) Option { return func(c *config) { c.idleTimeout = d } }

// WithMaxBody caps the size of a POST /v1/stream request body in bytes.
func WithMaxBody(n int64) Option { return func(c *config) { c.maxBody = n } }

// WithMaxText caps the bytes of text and of reasoning returned with keep_text.
func WithMaxText(n int) Option { return func(c *config) { c.maxText = n } }

// WithMaxLineBytes caps one SSE line read from an upstream (passed to the
// engine; 0 keeps the engine's default). A longer line fails the request as
// malformed.
func WithMaxLineBytes(n int) Option { return func(c *config) { c.maxLine = n } }

// WithBodyReadTimeout bounds reading one request body from the k6 side.
func WithBodyReadTimeout(d time.Duration) Option {
	return func(c *config) { c.bodyReadTimeout = d }
}

// WithLogger sets where the helper logs. Logs never hold header values, request
// bodies or URL query strings. The default discards everything.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithClock replaces the clock of the helper's canary (see Health): now reads
// the time and sleep waits. Tests inject a scheduling delay with it instead of
// loading the machine; the default is time.Now and time.Sleep.
func WithClock(now func() time.Time, sleep func(time.Duration)) Option {
	return func(c *config) { c.clockNow, c.clockSleep = now, sleep }
}

// WithCPUCounters replaces how the helper's CPU sampler reads the machine's
// CPU counters (default headroom.ReadCPU): tests give each request a known
// idle share with it instead of loading the machine.
func WithCPUCounters(read func() (headroom.CPUTimes, error)) Option {
	return func(c *config) { c.readCPU = read }
}

// WithRecords writes one record per request to w (docs/records.md). The
// handler submits each record without blocking; the caller closes w after
// the server has shut down (Server.Shutdown returns after every request).
func WithRecords(w *records.Writer) Option { return func(c *config) { c.records = w } }

// WithServerSampler stamps each request's record with the server's queue
// depth and running requests of s's latest scrape at the request's start
// (records' server_waiting and server_running): one atomic load per
// request. The caller starts and stops s.
func WithServerSampler(s *serverstats.Sampler) Option { return func(c *config) { c.sampler = s } }

// WithGPUSampler stamps each request's record with the GPUs' state (the
// NVIDIA DCGM exporter's utilization, memory, power and SM clock) from the
// latest scrape of s before the request started.
func WithGPUSampler(s *serverstats.Sampler) Option { return func(c *config) { c.gpuSampler = s } }

// WithRootCAs makes the default engine trust the certificate authorities
// in pool, and only them, for https upstreams (LoadCAFile builds a pool of
// the system's and a file's). nil keeps the system's roots. It does not
// apply to a WithStreamer engine.
func WithRootCAs(pool *x509.CertPool) Option { return func(c *config) { c.rootCAs = pool } }
