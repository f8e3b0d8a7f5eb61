package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

const mockUsage = `usage: xk6-llmstream mock [flags]

Serves a mock LLM — OpenAI chat completions, OpenAI completions, Anthropic
messages, OpenAI Responses, Gemini, Cohere v2 chat and ollama's /api/chat,
streamed and not — with a seeded latency model, injected faults and
ground-truth write timestamps ("x_mock_ts_ns") in every event. Prints its base
URL as the first line on stdout; stops on SIGINT or SIGTERM.

Settings come from the defaults, then --profile, then the flags given (model
flags apply to the default model and to every model of the profile; a flag's
default is the built-in setting, used when neither the profile nor the flag
sets it).
The profile format is in docs/mock-flags.md.

Examples:
  xk6-llmstream mock
  xk6-llmstream mock --addr 127.0.0.1:8000 --profile scripts/mock-profiles/realistic.json
  xk6-llmstream mock --slots 8 --queue-limit 32 --fault-429 0.01 --log mock.jsonl
  xk6-llmstream mock --prefill 0s --itl 0s --seed 7   # instant answers

Flags:
`

// mockShutdownGrace bounds the wait for connections to close after the
// streams were stopped.
const mockShutdownGrace = 5 * time.Second

// runMock is the `mock` command: serveMock until SIGINT or SIGTERM.
func runMock(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveMock(ctx, args, stdout, stderr)
}

// mockFlags are the command's flags: its own (where and how to serve) and
// the mock's settings, which package mockllm declares (mockllm.Settings).
type mockFlags struct {
	fs                     *flag.FlagSet
	settings               *mockllm.Flags
	addr, profile, logPath string
	tls, noKeepAlive       bool
	certOut                string
	handshake              mockllm.TLSOptions
}

func newMockFlags(stderr io.Writer) *mockFlags {
	m := &mockFlags{fs: flag.NewFlagSet("mock", flag.ContinueOnError)}
	fs := m.fs
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, mockUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&m.addr, "addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0 picks a free one)")
	fs.StringVar(&m.profile, "profile", "", "read settings from the JSON profile `FILE`")
	fs.StringVar(&m.logPath, "log", "", "write one JSON line per request (ground truth) to `FILE`")
	fs.BoolVar(&m.tls, "tls", false, "serve https with a self-signed certificate for 127.0.0.1, ::1 and localhost made at start (needs --tls-cert-out)")
	fs.StringVar(&m.certOut, "tls-cert-out", "", "write the --tls certificate (PEM) to `FILE`, for clients to trust (e.g. helper --ca-file)")
	fs.DurationVar(&m.handshake.HandshakeDelay, "handshake-delay", 0, "delay every TLS handshake by `DURATION`: a slow connect (needs --tls)")
	fs.Float64Var(&m.handshake.HandshakeShare, "handshake-share", 1, "delay only the share `P` (0 < P ≤ 1) of the TLS handshakes, drawn with --seed (needs --handshake-delay)")
	fs.BoolVar(&m.noKeepAlive, "no-keepalive", false, "close each connection after its response, so that every request connects anew (and, with --tls, pays a handshake)")
	m.settings = mockllm.RegisterFlags(fs)
	return m
}

// checkConnection refuses bad combinations and values of the TLS flags.
func (m *mockFlags) checkConnection() error {
	set := map[string]bool{}
	m.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case m.tls && m.certOut == "":
		return usagef("--tls needs --tls-cert-out FILE: clients trust the certificate made at start from that file")
	case !m.tls && set["tls-cert-out"]:
		return usagef("--tls-cert-out needs --tls")
	case !m.tls && set["handshake-delay"]:
		return usagef("--handshake-delay needs --tls: it delays TLS handshakes")
	case m.handshake.HandshakeDelay < 0:
		return usagef("--handshake-delay must not be negative (got %v)", m.handshake.HandshakeDelay)
	case set["handshake-share"] && m.handshake.HandshakeDelay == 0:
		return usagef("--handshake-share needs a positive --handshake-delay")
	case !(m.handshake.HandshakeShare > 0 && m.handshake.HandshakeShare <= 1):
		return usagef("--handshake-share must be more than 0 and at most 1 (got %v)", m.handshake.HandshakeShare)
	}
	return nil
}

// serveMock runs the mock until ctx ends. It prints the base URL as the first
// line on stdout and diagnostics on stderr.
func serveMock(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	m := newMockFlags(stderr)
	if err := m.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{Err: err}
	}
	if m.fs.NArg() > 0 {
		return usagef("unexpected argument %q", m.fs.Arg(0))
	}
	if err := checkAddr(m.addr); err != nil {
		return err
	}
	if err := m.checkConnection(); err != nil {
		return err
	}
	cfg, err := m.settings.Config(m.profile)
	if err != nil {
		return usageError{Err: err}
	}

	if m.logPath != "" {
		f, err := os.Create(m.logPath)
		if err != nil {
			return fmt.Errorf("--log: %w", err)
		}
		defer func() {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("--log %s: %w", m.logPath, cerr)
			}
		}()
		cfg.Log = f
	}

	srv, err := mockllm.New(cfg)
	if err != nil {
		return usageError{Err: err}
	}
	ln, url, err := m.listen(cfg.Seed)
	if err != nil {
		_ = srv.Close()
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 30 * time.Second}
	hs.SetKeepAlivesEnabled(!m.noKeepAlive)

	if _, err := fmt.Fprintln(stdout, url); err != nil {
		_ = ln.Close()
		_ = srv.Close()
		return fmt.Errorf("writing the base URL: %w", err)
	}
	printMockBanner(stderr, cfg, url, m.connection())
	return serveUntil(ctx, srv, hs, ln, stderr)
}

// listen listens on --addr, over TLS with --tls (after writing the
// certificate to --tls-cert-out, handshakes drawn with seed), and returns
// the listener and the mock's base URL.
func (m *mockFlags) listen(seed uint64) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", m.addr)
	if err != nil {
		return nil, "", fmt.Errorf("--addr %s: %w", m.addr, err)
	}
	if !m.tls {
		return ln, "http://" + ln.Addr().String(), nil
	}
	o := m.handshake
	o.Seed = seed
	tc, certPEM, err := mockllm.NewTLS(o)
	if err == nil {
		if err = os.WriteFile(m.certOut, certPEM, 0o644); err != nil {
			err = fmt.Errorf("--tls-cert-out: %w", err)
		}
	}
	if err != nil {
		_ = ln.Close()
		return nil, "", err
	}
	return tls.NewListener(ln, tc), "https://" + ln.Addr().String(), nil
}

// connection says how the mock's connections go, for the banner.
func (m *mockFlags) connection() string {
	var parts []string
	if m.tls {
		parts = append(parts, "certificate in "+m.certOut)
	}
	if d := m.handshake.HandshakeDelay; d > 0 {
		parts = append(parts, fmt.Sprintf("handshakes %v slower (share %v)", d, m.handshake.HandshakeShare))
	}
	if m.noKeepAlive {
		parts = append(parts, "keep-alive off")
	}
	return strings.Join(parts, ", ")
}

// printMockBanner says on stderr what the mock serves where, and how its
// connections go (conn, if anything to say).
func printMockBanner(stderr io.Writer, cfg mockllm.Config, url, conn string) {
	slots := "unlimited"
	if cfg.Slots > 0 {
		slots = fmt.Sprint(cfg.Slots)
		if cfg.SlotsPerModel {
			slots += " per model"
		}
	}
	if conn != "" {
		conn = "; " + conn
	}
	fmt.Fprintf(stderr, "mock: serving %s on %s (seed %d, slots %s, queue limit %d, api key %s%s)\n",
		strings.Join(cfg.ModelNames(), ", "), url, cfg.Seed, slots, cfg.QueueLimit, onOff(cfg.APIKey != ""), conn)
}

// serveUntil serves hs on ln until ctx ends or serving fails, then stops the
// mock's streams, shuts hs down and prints the mock's statistics.
func serveUntil(ctx context.Context, srv *mockllm.Server, hs *http.Server, ln net.Listener, stderr io.Writer) error {
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	// Stop the streams first (their clients see them cut), then the listener
	// and the idle connections.
	closeErr := srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), mockShutdownGrace)
	defer cancel()
	shutErr := hs.Shutdown(sctx)
	if serveErr == nil {
		serveErr = <-served
	}
	printMockStats(stderr, srv.Stats())
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, closeErr, shutErr)
}

func onOff(b bool) string {
	if b {
		return "required"
	}
	return "not required"
}

func printMockStats(w io.Writer, st mockllm.Stats) {
	fmt.Fprintf(w, "mock: %d requests, %d streams, %d completed, %d client gone, %d events, %d tokens; pacing lateness p50 %v, p99 %v, max %v\n",
		st.Requests, st.Streams, st.Completed, st.ClientGone, st.Events, st.Tokens,
		st.Lateness.P50, st.Lateness.P99, st.Lateness.Max)
	if len(st.Faults) > 0 {
		kinds := make([]string, 0, len(st.Faults))
		for k := range st.Faults {
			kinds = append(kinds, string(k))
		}
		sort.Strings(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, st.Faults[mockllm.Fault(k)])
		}
		fmt.Fprintf(w, "mock: faults: %s\n", strings.Join(parts, ", "))
	}
}
