package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
)

// helperTokenEnv names the environment variable holding the helper's bearer
// token (read by `helper` and by llmstream.js).
const helperTokenEnv = "LLMSTREAM_HELPER_TOKEN"

// helperShutdownGrace is how long running streams may finish after SIGINT/SIGTERM.
const helperShutdownGrace = 10 * time.Second

const helperUsage = `usage: xk6-llmstream helper [flags]

Serves the streaming helper that llmstream.js talks to (POST /v1/stream,
GET /healthz; see docs/helper-api.md). Prints its base URL as the first line on
stdout (point the module at it with LLMSTREAM_HELPER or the Client's helper
option), logs to stderr, and stops on SIGINT or SIGTERM.

Only loopback upstreams are allowed unless --allow names more hosts. Binding a
non-loopback address requires a token (--token or LLMSTREAM_HELPER_TOKEN; the
environment keeps it out of process listings).

Examples:
  xk6-llmstream helper
  xk6-llmstream helper --addr 127.0.0.1:7070 --allow api.openai.com,api.anthropic.com
  LLMSTREAM_HELPER_TOKEN=$(openssl rand -hex 16) xk6-llmstream helper --addr 0.0.0.0:7070 --allow *.internal.example

Flags:
`

// helperFlags are the flags of `helper`.
type helperFlags struct {
	addr        string
	allow       []string
	token       string
	timeout     time.Duration
	idleTimeout time.Duration
	maxBody     byteSize
	maxText     byteSize
	maxLine     byteSize
	records     string
	recOverride bool
	verbose     bool
	grace       time.Duration
	scrape      string
	scrapeEvery time.Duration
	gpuMetrics  string
	caFile      string
}

func newHelperFlagSet(f *helperFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("helper", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.maxBody = byteSize(helper.DefaultMaxBody)
	f.maxText = byteSize(helper.DefaultMaxText)
	fs.StringVar(&f.addr, "addr", helper.DefaultAddr, "listen `address` (host:port; port 0 picks a free one)")
	fs.Func("allow", "upstream `hosts` allowed besides loopback, comma-separated: host, host:port, *.domain, IP or IP/prefix (repeatable)", func(v string) error {
		f.allow = append(f.allow, v)
		return nil
	})
	fs.StringVar(&f.token, "token", "", "bearer `token` required from the module (default $"+helperTokenEnv+")")
	fs.DurationVar(&f.timeout, "timeout", helper.DefaultTimeout, "whole-request timeout for requests that set none")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", helper.DefaultIdleTimeout, "wait for the next upstream bytes, for requests that set none")
	fs.Var(&f.maxBody, "max-body", "largest request `size` accepted on POST /v1/stream (e.g. 4MiB)")
	fs.Var(&f.maxText, "max-text", "largest text (and reasoning) `size` returned with keep_text")
	fs.Var(&f.maxLine, "max-line", "longest upstream SSE line `size` (0: the engine's default)")
	fs.DurationVar(&f.grace, "grace", helperShutdownGrace, "after SIGINT/SIGTERM, how long running streams may finish before they are canceled (and answered as canceled)")
	fs.StringVar(&f.records, "records", "", "write one record per request to `file` (JSON Lines; .gz compresses; docs/records.md)")
	fs.BoolVar(&f.recOverride, "records-overwrite", false, "let --records replace an existing file that is not a records file (without it such a file is refused, left as it is)")
	fs.StringVar(&f.scrape, "scrape", "", "stamp each record with the server's queue depth and running requests from this Prometheus /metrics `URL` (http or https; needs --records)")
	fs.DurationVar(&f.scrapeEvery, "scrape-interval", serverstats.DefaultInterval, "time between two scrapes of --scrape and --gpu-metrics")
	fs.StringVar(&f.gpuMetrics, "gpu-metrics", "", "stamp each record with the GPUs' utilization, memory, power and SM clock from this NVIDIA DCGM exporter /metrics `URL` (needs --records; scraped every --scrape-interval)")
	fs.StringVar(&f.caFile, "ca-file", "", "trust the CA certificates (PEM) in `file` for https upstreams, besides the system's (a gateway's private CA, the mock's --tls-cert-out)")
	fs.BoolVar(&f.verbose, "verbose", false, "log every stream (upstream without query, status, error kind, timings)")
	fs.Usage = func() {
		fmt.Fprint(stderr, helperUsage)
		fs.PrintDefaults()
	}
	return fs
}

// runHelper serves the helper until SIGINT or SIGTERM.
func runHelper(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal, a second one ends the process the default way.
	context.AfterFunc(ctx, stop)
	return serveHelper(ctx, args, stdout, stderr)
}

// serveHelper parses args, starts the helper, prints its URL and serves until
// ctx ends, then shuts down gracefully.
func serveHelper(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, allow, err := parseHelperArgs(args, stderr)
	if err != nil || f == nil {
		return err // f is nil after -h
	}
	caOpts, _, err := caFileOptions(f.caFile)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})).With("component", "helper")

	opts := []helper.Option{
		helper.WithToken(f.token),
		helper.WithAllowList(allow),
		helper.WithTimeout(f.timeout),
		helper.WithIdleTimeout(f.idleTimeout),
		helper.WithMaxBody(int64(f.maxBody)),
		helper.WithMaxText(int(f.maxText)),
		helper.WithMaxLineBytes(int(f.maxLine)),
		helper.WithLogger(logger),
	}
	opts = append(opts, caOpts...)
	scrapeOpts, err := helperScrapeOptions(f, allow, "--scrape", f.scrape)
	if err != nil {
		return err
	}
	gpuOpts, err := helperScrapeOptions(f, allow, "--gpu-metrics", f.gpuMetrics)
	if err != nil {
		return err
	}
	if scrapeOpts == nil { // the same options scrape both
		scrapeOpts = gpuOpts
	}
	served, err := helper.Serve(ctx, helper.ServeConfig{
		Addr:             f.addr,
		Options:          opts,
		Records:          f.records,
		RecordsOverwrite: f.recOverride,
		OnRecordsError: func(err error) {
			logger.Error("records write failed: the records from here on are lost (counted); the helper will exit non-zero", "file", f.records, "error", err)
		},
		Scrape:         f.scrape,
		ScrapeInterval: f.scrapeEvery,
		ScrapeOptions:  scrapeOpts,
		GPUMetrics:     f.gpuMetrics,
		Grace:          f.grace,
		Ready: func(srv *helper.Server) error {
			if _, err := fmt.Fprintln(stdout, srv.URL()); err != nil {
				return fmt.Errorf("writing the helper URL to stdout: %w", err)
			}
			logger.Info("listening", "url", srv.URL(), "allow", allow.String(), "token_required", f.token != "")
			return nil
		},
	})
	if served.URL == "" { // never listened
		return startError(err)
	}
	logServed(logger, f, served)
	return err
}

// parseHelperArgs parses and checks the helper's flags; the token defaults
// to the environment's. f is nil when -h asked for the usage.
func parseHelperArgs(args []string, stderr io.Writer) (*helperFlags, *helper.AllowList, error) {
	var f helperFlags
	fs := newHelperFlagSet(&f, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, nil
		}
		return nil, nil, usageError{Err: err}
	}
	if fs.NArg() > 0 {
		return nil, nil, usagef("unexpected argument %q (the helper takes only flags)", fs.Arg(0))
	}
	if err := checkAddr(f.addr); err != nil {
		return nil, nil, err
	}
	if f.token == "" {
		f.token = strings.TrimSpace(os.Getenv(helperTokenEnv))
	}
	allow, err := helper.ParseAllowList(f.allow...)
	if err != nil {
		return nil, nil, usagef("--allow: %v", err)
	}
	if f.grace < 0 {
		return nil, nil, usagef("--grace must not be negative (got %v)", f.grace)
	}
	if f.timeout <= 0 || f.idleTimeout <= 0 {
		return nil, nil, usagef("--timeout and --idle-timeout must be positive (got %v and %v)", f.timeout, f.idleTimeout)
	}
	if f.maxBody <= 0 || f.maxText <= 0 {
		return nil, nil, usagef("--max-body and --max-text must be positive")
	}
	return &f, allow, nil
}

// startError classes an error of a helper that never listened: a missing
// token or a refused scrape target is a usage error.
func startError(err error) error {
	switch {
	case errors.Is(err, helper.ErrTokenRequired):
		return usageError{Err: err}
	case errors.Is(err, helper.ErrGPUMetrics) && errors.Is(err, serverstats.ErrRefused):
		return usageError{Err: err}
	case errors.Is(err, serverstats.ErrRefused):
		return usagef("--scrape: %v", err)
	}
	return err
}

// logServed logs what the helper served: streams, scrapes, records.
func logServed(logger *slog.Logger, f *helperFlags, served helper.Served) {
	st := served.Stats
	logger.Info("stopped", "streams", st.Streams, "failed", st.Failed, "canceled", st.Canceled, "refused", st.Refused)
	if f.scrape != "" {
		sc := served.Scrapes
		logger.Info("scrapes", "ok", sc.Scrapes, "failed", sc.Errors, "last_error", sc.LastError, "rejected_values", sc.Rejected, "slow", sc.Slow)
	}
	if f.gpuMetrics != "" {
		sc := served.GPUScrapes
		logger.Info("gpu scrapes", "ok", sc.Scrapes, "failed", sc.Errors, "last_error", sc.LastError, "rejected_values", sc.Rejected, "slow", sc.Slow)
	}
	if f.records != "" {
		logger.Info("records", "file", f.records, "summary", served.Records)
	}
}

// caFileOptions are the helper's and the scraper's options for --ca-file
// path (none when empty): the system's roots and the file's certificates
// trusted, for https upstreams and https scrapes alike.
func caFileOptions(path string) ([]helper.Option, []serverstats.Option, error) {
	if path == "" {
		return nil, nil, nil
	}
	pool, err := helper.LoadCAFile(path)
	if err != nil {
		return nil, nil, usagef("--ca-file: %v", err)
	}
	return []helper.Option{helper.WithRootCAs(pool)}, []serverstats.Option{serverstats.WithRootCAs(pool)}, nil
}

// helperScrapeOptions checks a scrape flag (--scrape, --gpu-metrics; both
// scraped with the same options) and --scrape-interval and returns the
// scraper's options: its URL and redirects on the allow-list, https trusting
// --ca-file's CAs as the upstreams do.
func helperScrapeOptions(f *helperFlags, allow *helper.AllowList, flag, url string) ([]serverstats.Option, error) {
	switch {
	case url == "":
		return nil, nil
	case f.records == "" && flag == "--scrape":
		return nil, usageError{Err: helper.ErrScrapeNeedsRecords}
	case f.records == "":
		return nil, usageError{Err: helper.ErrGPUMetricsNeedsRecords}
	case f.scrapeEvery <= 0:
		return nil, usagef("--scrape-interval must be positive (got %v)", f.scrapeEvery)
	case url == serverstats.Mock:
		return nil, usagef("%s mock: the helper starts no mock; give the server's /metrics URL (xk6-llmstream run --scrape mock scrapes the mock it starts)", flag)
	}
	if err := serverstats.CheckURL(flag, url); err != nil {
		return nil, usageError{Err: err}
	}
	_, caOpts, err := caFileOptions(f.caFile)
	if err != nil {
		return nil, err
	}
	return append([]serverstats.Option{serverstats.WithAllow(allow.Allows)}, caOpts...), nil
}

// byteSize is a flag.Value for sizes in bytes: "4194304", "4MiB", "512KiB",
// "1GiB" (binary), "4MB", "64KB" (decimal), "100B". Case-insensitive.
type byteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"b", 1},
}

func (s *byteSize) String() string {
	n := int64(*s)
	switch {
	case n != 0 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n != 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n != 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10)
}

func (s *byteSize) Set(v string) error {
	n, err := parseByteSize(v)
	if err != nil {
		return err
	}
	*s = byteSize(n)
	return nil
}

func parseByteSize(v string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(v))
	mult := int64(1)
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want a number of bytes, optionally with a unit (B, KiB, MiB, GiB, KB, MB, GB)", v)
	}
	return n * mult, nil
}

// checkAddr checks the form of a --addr value (helper and mock) before
// anything is started, so that a malformed one is a usage error (exit 2):
// HOST:PORT where HOST is empty (every interface), localhost or an IP address
// (no name is resolved) and PORT a number from 0 (a free one) to 65535.
// An address of the right form that cannot be listened on is found later,
// when listening (exit 1).
func checkAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addrError(addr, err.Error())
	}
	if host != "" && host != "localhost" {
		if _, err := netip.ParseAddr(host); err != nil {
			return addrError(addr, fmt.Sprintf("host %q is not an IP address or localhost", host))
		}
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return addrError(addr, fmt.Sprintf("port %q is not a number from 0 to 65535", port))
	}
	return nil
}

func addrError(addr, why string) error {
	return usagef("--addr %q: %s (want HOST:PORT, HOST an IP address or localhost, PORT 0 to 65535, e.g. 127.0.0.1:0)", addr, why)
}
