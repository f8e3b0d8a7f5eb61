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

	"github.com/llmstream/xk6-llmstream/mockllm"
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
The profile format is in docs/mock.md.

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

// mockFlags are the command's flags; the model ones are applied only when
// given.
type mockFlags struct {
	fs                                      *flag.FlagSet
	addr, profile, logPath, apiKey, models  string
	tokenizer                               string
	cacheBlocks, blockTokens                int
	prefillPerCached                        time.Duration
	seed                                    uint64
	slots, queueLimit                       int
	slotsPerModel                           bool
	retryAfter                              time.Duration
	burst                                   mockllm.Burst
	prefill, prefillPerToken, itl, stall    time.Duration
	prefillSigma, itlSigma, stallProb, slow float64
	outputTokens, reasoningTokens, tpe      int
	echo                                    bool
	f429, f5xx, fDisc, fMal, fErr, fNotStr  float64
	fPause                                  float64
	fPauseFor                               time.Duration
	tls, noKeepAlive                        bool
	certOut                                 string
	handshake                               mockllm.TLSOptions
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
	fs.StringVar(&m.apiKey, "api-key", "", "require this `KEY` (Authorization: Bearer or x-api-key); answer 401 otherwise")
	fs.StringVar(&m.models, "models", "", "serve and list these comma-separated model `NAMES` (with the default settings unless the profile has them)")
	fs.Uint64Var(&m.seed, "seed", 1, "random `SEED` of the latency model and faults")
	fs.IntVar(&m.slots, "slots", 0, "at most `N` streams decode at once, others wait FIFO (0: unlimited)")
	fs.IntVar(&m.queueLimit, "queue-limit", 0, "answer 429 when `N` requests already wait for a slot (0: no limit)")
	fs.BoolVar(&m.slotsPerModel, "slots-per-model", false, "give each model its own slots and queue")
	fs.DurationVar(&m.retryAfter, "retry-after", mockllm.DefaultRetryAfter, "Retry-After of 429 answers")
	fs.DurationVar(&m.burst.Start, "burst-start", 0, "a stall burst begins `DURATION` after the mock starts (with --burst-delay)")
	fs.DurationVar(&m.burst.Duration, "burst-duration", 0, "the stall burst lasts `DURATION` (0: to the end)")
	fs.DurationVar(&m.burst.Delay, "burst-delay", 0, "requests arriving in the burst get their first token `DURATION` later (0: no burst)")
	fs.BoolVar(&m.tls, "tls", false, "serve https with a self-signed certificate for 127.0.0.1, ::1 and localhost made at start (needs --tls-cert-out)")
	fs.StringVar(&m.certOut, "tls-cert-out", "", "write the --tls certificate (PEM) to `FILE`, for clients to trust (e.g. helper --ca-file)")
	fs.DurationVar(&m.handshake.HandshakeDelay, "handshake-delay", 0, "delay every TLS handshake by `DURATION`: a slow connect (needs --tls)")
	fs.Float64Var(&m.handshake.HandshakeShare, "handshake-share", 1, "delay only the share `P` (0 < P ≤ 1) of the TLS handshakes, drawn with --seed (needs --handshake-delay)")
	fs.BoolVar(&m.noKeepAlive, "no-keepalive", false, "close each connection after its response, so that every request connects anew (and, with --tls, pays a handshake)")
	dc := mockllm.DefaultConfig()
	fs.StringVar(&m.tokenizer, "tokenizer", dc.Tokenizer, "count prompt tokens with `TOKENIZER` (cl100k_base, o200k_base, a tokenizer.json path, or words), as `xk6-llmstream dataset` does")
	fs.IntVar(&m.cacheBlocks, "prefix-cache-blocks", dc.PrefixCache.Blocks, "prefix cache capacity in `N` blocks (0: no prefix cache)")
	fs.IntVar(&m.blockTokens, "prefix-block-tokens", dc.PrefixCache.BlockTokens, "prefix cache block size `N` in tokens")
	def := dc.Default
	fs.DurationVar(&m.prefill, "prefill", def.Prefill.Base, "prefill base `DURATION` (time from slot to first token)")
	fs.DurationVar(&m.prefillPerToken, "prefill-per-token", def.Prefill.PerInputToken, "prefill `DURATION` added per input token")
	fs.DurationVar(&m.prefillPerCached, "prefill-per-cached-token", def.Prefill.PerCachedToken, "prefill `DURATION` per input token served from the prefix cache")
	fs.Float64Var(&m.prefillSigma, "prefill-sigma", def.Prefill.Jitter.Sigma, "lognormal jitter `SIGMA` of prefill (0: none)")
	fs.DurationVar(&m.itl, "itl", def.ITL.Base, "inter-token latency base `DURATION`")
	fs.Float64Var(&m.itlSigma, "itl-sigma", def.ITL.Jitter.Sigma, "lognormal jitter `SIGMA` of the inter-token latency (0: none)")
	fs.Float64Var(&m.stallProb, "stall-prob", 0, "probability `P` of a stall before each token event")
	fs.DurationVar(&m.stall, "stall", 0, "stall `DURATION`")
	fs.Float64Var(&m.slow, "slowdown", 0, "decode slowdown `F`: ITL × (1 + F × (active streams − 1))")
	fs.IntVar(&m.outputTokens, "output-tokens", 0, "answer length `N` in tokens (0: fill max_tokens, else 16; default: lognormal, median 120)")
	fs.IntVar(&m.reasoningTokens, "reasoning-tokens", 0, "reasoning tokens `N` before the answer (0: none)")
	fs.IntVar(&m.tpe, "tokens-per-event", 0, "tokens per event `N` (speculative decoding; 0: 1)")
	fs.BoolVar(&m.echo, "echo", false, "answer with the prompt's words instead of filler text")
	fs.Float64Var(&m.f429, "fault-429", 0, "`RATE` of injected 429 answers")
	fs.Float64Var(&m.f5xx, "fault-5xx", 0, "`RATE` of injected 5xx answers")
	fs.Float64Var(&m.fDisc, "fault-disconnect", 0, "`RATE` of connections broken mid-stream")
	fs.Float64Var(&m.fMal, "fault-malformed", 0, "`RATE` of streams with one malformed event")
	fs.Float64Var(&m.fErr, "fault-error-event", 0, "`RATE` of streams ended by an error event")
	fs.Float64Var(&m.fNotStr, "fault-not-streamed", 0, "`RATE` of streamed requests answered with one JSON document")
	fs.Float64Var(&m.fPause, "fault-pause", 0, "`RATE` of answers with one long pause mid-answer (--fault-pause-duration)")
	fs.DurationVar(&m.fPauseFor, "fault-pause-duration", 0, "how long the --fault-pause pause is (`DURATION`)")
	return m
}

// checkConnection refuses bad combinations and values of the TLS flags
// (set: the flags given).
func (m *mockFlags) checkConnection(set map[string]bool) error {
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

// config builds the Config: defaults, then the profile, then the flags given.
func (m *mockFlags) config() (mockllm.Config, error) {
	cfg := mockllm.DefaultConfig()
	if m.profile != "" {
		var err error
		if cfg, err = mockllm.LoadProfile(m.profile); err != nil {
			return cfg, err
		}
	}
	set := map[string]bool{}
	m.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := m.checkConnection(set); err != nil {
		return cfg, err
	}
	if err := m.applyServer(&cfg, set); err != nil {
		return cfg, err
	}
	m.applyModel(&cfg.Default, set)
	for name, mc := range cfg.Models {
		m.applyModel(&mc, set)
		cfg.Models[name] = mc
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usagef("%v", err)
	}
	return cfg, nil
}

// applyServer sets the server settings whose flags were given (set).
func (m *mockFlags) applyServer(cfg *mockllm.Config, set map[string]bool) error {
	m.applyBurst(cfg, set)
	if set["seed"] {
		cfg.Seed = m.seed
	}
	if set["slots"] {
		cfg.Slots = m.slots
	}
	if set["queue-limit"] {
		cfg.QueueLimit = m.queueLimit
	}
	if set["slots-per-model"] {
		cfg.SlotsPerModel = m.slotsPerModel
	}
	if set["retry-after"] {
		cfg.RetryAfter = m.retryAfter
	}
	if set["api-key"] {
		cfg.APIKey = m.apiKey
	}
	if set["tokenizer"] {
		cfg.Tokenizer = m.tokenizer
	}
	if set["prefix-cache-blocks"] {
		cfg.PrefixCache.Blocks = m.cacheBlocks
	}
	if set["prefix-block-tokens"] {
		cfg.PrefixCache.BlockTokens = m.blockTokens
	}
	if set["models"] {
		for _, name := range strings.Split(m.models, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				return usagef("--models: empty model name in %q", m.models)
			}
			if _, ok := cfg.Models[name]; !ok {
				if cfg.Models == nil {
					cfg.Models = map[string]mockllm.ModelConfig{}
				}
				cfg.Models[name] = cfg.Default
			}
		}
	}
	return nil
}

// applyBurst sets the stall burst's settings whose flags were given.
func (m *mockFlags) applyBurst(cfg *mockllm.Config, set map[string]bool) {
	if set["burst-start"] {
		cfg.Burst.Start = m.burst.Start
	}
	if set["burst-duration"] {
		cfg.Burst.Duration = m.burst.Duration
	}
	if set["burst-delay"] {
		cfg.Burst.Delay = m.burst.Delay
	}
}

// applyModel sets the model settings whose flags were given (set) in mc.
func (m *mockFlags) applyModel(mc *mockllm.ModelConfig, set map[string]bool) {
	lognormal := func(sigma float64) mockllm.Jitter {
		if sigma == 0 {
			return mockllm.Jitter{}
		}
		return mockllm.Jitter{Dist: mockllm.JitterLognormal, Sigma: sigma}
	}
	for name, do := range map[string]func(){
		"prefill":                  func() { mc.Prefill.Base = m.prefill },
		"prefill-per-token":        func() { mc.Prefill.PerInputToken = m.prefillPerToken },
		"prefill-per-cached-token": func() { mc.Prefill.PerCachedToken = m.prefillPerCached },
		"prefill-sigma":            func() { mc.Prefill.Jitter = lognormal(m.prefillSigma) },
		"itl":                      func() { mc.ITL.Base = m.itl },
		"itl-sigma":                func() { mc.ITL.Jitter = lognormal(m.itlSigma) },
		"stall-prob":               func() { mc.Stall.Prob = m.stallProb },
		"stall":                    func() { mc.Stall.Duration = m.stall },
		"slowdown":                 func() { mc.DecodeSlowdown = m.slow },
		"echo":                     func() { mc.Echo = m.echo },
		"fault-429":                func() { mc.Faults.HTTP429 = m.f429 },
		"fault-5xx":                func() { mc.Faults.HTTP5xx = m.f5xx },
		"fault-disconnect":         func() { mc.Faults.Disconnect = m.fDisc },
		"fault-malformed":          func() { mc.Faults.Malformed = m.fMal },
		"fault-error-event":        func() { mc.Faults.ErrorEvent = m.fErr },
		"fault-not-streamed":       func() { mc.Faults.NotStreamed = m.fNotStr },
		"fault-pause":              func() { mc.Faults.Pause = m.fPause },
		"fault-pause-duration":     func() { mc.Faults.PauseDuration = m.fPauseFor },
		"output-tokens": func() {
			// A negative count is kept so that validation refuses it with the
			// profile's own message (output_tokens.value: -1 is negative).
			mc.OutputTokens = mockllm.Count{}
			if m.outputTokens != 0 {
				mc.OutputTokens = mockllm.FixedCount(m.outputTokens)
			}
		},
		"reasoning-tokens": func() {
			mc.ReasoningTokens = mockllm.Count{}
			if m.reasoningTokens != 0 {
				mc.ReasoningTokens = mockllm.FixedCount(m.reasoningTokens)
			}
		},
		"tokens-per-event": func() { mc.TokensPerEvent = mockllm.TokensPerEvent{Min: m.tpe, Max: m.tpe} },
	} {
		if set[name] {
			do()
		}
	}

}

// serveMock runs the mock until ctx ends. It prints the base URL as the first
// line on stdout and diagnostics on stderr.
func serveMock(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	m := newMockFlags(stderr)
	if err := m.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if m.fs.NArg() > 0 {
		return usagef("unexpected argument %q", m.fs.Arg(0))
	}
	if err := checkAddr(m.addr); err != nil {
		return err
	}
	cfg, err := m.config()
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			return err
		}
		return usageError{err}
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
		return usageError{err}
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
