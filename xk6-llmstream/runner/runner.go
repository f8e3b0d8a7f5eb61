package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/escape"
	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
)

// Exit codes k6 uses that the runner explains.
const (
	// ExitThresholdsFailed is k6's exit code when a threshold failed.
	ExitThresholdsFailed = 99
)

// Timing of the runner's shutdown sequence.
const (
	// KillGrace is how long k6 may take to stop after the runner's context
	// ended and k6 was interrupted, before it is killed.
	KillGrace = 30 * time.Second
	// StopGrace is how long the helper's remaining streams may finish after k6
	// exited.
	StopGrace = 5 * time.Second
	// WaitDelay bounds the wait for k6's standard streams after it exited.
	WaitDelay = 5 * time.Second
)

// Config says what Run runs.
type Config struct {
	// Args are the arguments after "k6 run": the script and k6's own flags.
	Args []string
	// Mock starts the mock LLM even when LLM_BASE_URL is set. The mock also
	// starts whenever LLM_BASE_URL is unset or empty.
	Mock bool
	// MockProfile is a mock profile file (see docs/mock-flags.md); it implies Mock.
	MockProfile string
	// MockLog is a file the mock writes its request log to (its ground
	// truth, docs/mock.md); empty writes none.
	MockLog string
	// MockCmd, when not nil, makes the command that serves the mock in a
	// process of its own, given the mock's flags (`xk6-llmstream mock ARGS`):
	// the mock then shares nothing with the helper but the machine, as a real
	// server shares nothing. nil serves it in this process, where its pacing
	// and garbage collection share the helper's Go runtime and enter the
	// helper's timestamps. On Windows, which cannot interrupt a child
	// process, the mock stays in this process whatever MockCmd says.
	MockCmd func(args ...string) *exec.Cmd
	// Allow lists upstream hosts the helper may stream from besides loopback
	// and the host of LLM_BASE_URL (helper.ParseAllowList entries).
	Allow []string
	// Env is the environment k6 runs in, and where K6_BIN, PATH and
	// LLM_BASE_URL are read; nil means os.Environ().
	Env []string
	// Stdin, Stdout and Stderr are k6's standard streams (nil: none); the
	// runner's own messages go to Stderr too, prefixed "xk6-llmstream:".
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Signals are forwarded to k6: the first one as it is (k6 then stops
	// gracefully), any further one kills k6.
	Signals <-chan os.Signal
	// Verbose makes the helper log every stream.
	Verbose bool
	// Records is a file the helper writes per-request records to
	// (docs/records.md); empty writes none.
	Records string
	// RecordsOverwrite lets Records replace an existing file that is not a
	// records file (run --records-overwrite).
	RecordsOverwrite bool
	// K6Nice lowers k6's CPU priority below the runner's (and so the
	// helper's) by that many nice steps, 0 to MaxK6Nice; 0 leaves it equal.
	// The command line's default is DefaultK6Nice (see there why).
	K6Nice int
	// K6Idle runs k6 under SCHED_IDLE (Linux): any other thread that wakes
	// up preempts it at once, so k6 cannot delay the helper's reads, but on a
	// machine other processes keep busy k6 gets little CPU and sends fewer
	// requests (which the load-generator warning then says). The command
	// line's default is on (--k6-idle).
	K6Idle bool
	// Scrape is a Prometheus /metrics URL, or serverstats.Mock for the
	// mock's own, scraped every serverstats.DefaultInterval so that each
	// record carries the server's queue depth and running requests at the
	// request's start; it needs Records. Empty scrapes nothing.
	Scrape string
	// HelperOptions are added to the helper's options (tests, benchmarks).
	HelperOptions []helper.Option
	// ScrapeOptions are added to the --scrape sampler's options (the CA
	// roots of --ca-file); the run's allow-list is always applied.
	ScrapeOptions []serverstats.Option
	// OnMock, when set, is told the mock's base URL once it listens.
	OnMock func(url string)
	// NoLoadGenWarning leaves out the end-of-run load-generator warning:
	// calibrate prints the rule's verdict itself, beside the ground truth.
	NoLoadGenWarning bool
}

// Run starts the helper (and the mock), runs "k6 run <Args…>" with the
// environment pointing at them, forwards signals, stops everything once k6
// has exited and returns k6's exit code (128+N when k6 was killed by signal
// N). err is set only when the runner itself failed: k6 not found, the helper
// or mock could not start, k6 could not be started, the records file could
// not be written (then code is still k6's). When ctx ends, k6 is
// interrupted, and killed if it has not stopped within KillGrace.
// long: the run's steps in order (helper, mock, k6, reports), each a call
func Run(ctx context.Context, cfg Config) (code int, err error) {
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	stderr := cfg.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	say := func(format string, args ...any) { // text from upstreams included: one line, no control reaches the terminal
		fmt.Fprintf(stderr, "xk6-llmstream: %s\n", escape.Line(fmt.Sprintf(format, args...)))
	}

	if err := CheckK6Nice(cfg.K6Nice); err != nil {
		return 0, err
	}
	k6, err := FindK6(env)
	if err != nil {
		return 0, err
	}
	useMock, why, allowList, err := chooseUpstream(cfg, env)
	if err != nil {
		return 0, err
	}

	var mock *mockServer
	if useMock {
		if mock, err = startRunMock(cfg, why, say); err != nil {
			return 0, err
		}
		defer func() {
			if err := mock.stop(); err != nil {
				say("warning: stopping the mock: %v", err)
			}
		}()
		env = setEnv(env, BaseURLEnv, mock.url)
	}

	token, err := newToken()
	if err != nil {
		return 0, err
	}
	scrape, err := scrapeURL(cfg.Scrape, mock)
	if err != nil {
		return 0, err
	}
	hs, stopHelper, err := startHelper(cfg, token, allowList, scrape, stderr, say)
	if err != nil {
		return 0, err
	}
	// finish stops the helper once k6 has exited and says what it did; a
	// records file that could not be written fails the run, as it fails the
	// helper command: its analysis would miss requests.
	var served helper.Served
	finish := sync.OnceValue(func() error {
		var err error
		served, err = stopHelper()
		reportServed(served, cfg.Records, scrape, say)
		return err
	})
	defer func() {
		if ferr := finish(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	env = setEnv(env, HelperEnv, hs.URL())
	env = setEnv(env, HelperTokenEnv, token)
	if LookupEnv(env, CacheSaltEnv) == "" {
		env = setEnv(env, CacheSaltEnv, NewCacheSalt())
	}
	say("helper at %s (upstreams allowed: %s), given to k6 as %s", hs.URL(), allowList, HelperEnv)

	code, err = runK6(ctx, k6, cfg, env, say)
	if err != nil {
		return 0, err
	}
	ferr := finish()
	reportFailures(served.Failures, say)
	reportExit(code, say)
	if !cfg.NoLoadGenWarning {
		reportHealth(served.Health, say)
	}
	reportSendLag(served.Health, say)
	return code, ferr
}

// runK6 runs k6 to its end and returns its exit code.
func runK6(ctx context.Context, k6 string, cfg Config, env []string, say func(string, ...any)) (int, error) {
	cmd := k6Command(k6, cfg, env)
	say("running %s run …", k6)
	waitErr, note, err := StartK6(cmd, cfg.K6Nice, cfg.K6Idle)
	if err != nil {
		return 0, fmt.Errorf("starting k6 (%s): %w", k6, err)
	}
	if note != "" {
		say("warning: %s", note)
	}
	return supervise(ctx, cmd, waitErr, cfg.Signals, say)
}

// reportServed says what the helper served: streams, records, scrapes.
func reportServed(served helper.Served, records, scrape string, say func(string, ...any)) {
	st := served.Stats
	say("helper served %d stream(s): %d failed, %d refused", st.Streams, st.Failed, st.Refused)
	if records != "" {
		say("records %s: %s", records, served.Records)
	}
	if scrape != "" {
		sc := served.Scrapes
		say("scrapes: %d ok, %d failed%s", sc.Scrapes, sc.Errors, lastError(sc.LastError))
	}
}

// startRunMock starts the mock for a run, tells cfg.OnMock its URL and says
// where it listens, why it runs and with which profile.
func startRunMock(cfg Config, why string, say func(string, ...any)) (*mockServer, error) {
	mock, err := startMock(cfg.MockProfile, cfg.MockLog, cfg.MockCmd)
	if err != nil {
		return nil, err
	}
	if cfg.OnMock != nil {
		cfg.OnMock(mock.url)
	}
	profile := "default profile"
	if cfg.MockProfile != "" {
		profile = "profile " + cfg.MockProfile
	}
	if cfg.MockCmd != nil && childMockSupported {
		profile += ", a process of its own"
	}
	say("mock LLM at %s (%s; %s), given to k6 as %s", mock.url, why, profile, BaseURLEnv)
	return mock, nil
}

// startHelper serves the helper in the background for one run and returns
// it once it listens, with the function that stops it and returns what it
// served. When it cannot start, the error says why.
func startHelper(cfg Config, token string, allowList *helper.AllowList, scrape string, stderr io.Writer, say func(string, ...any)) (*helper.Server, func() (helper.Served, error), error) {
	helperCtx, cancel := context.WithCancel(context.Background())
	ready := make(chan *helper.Server, 1)
	type outcome struct {
		served helper.Served
		err    error
	}
	stopped := make(chan outcome, 1)
	go func() {
		served, err := helper.Serve(helperCtx, helper.ServeConfig{
			Addr:             helper.DefaultAddr,
			Options:          helperOptions(cfg, token, allowList, stderr),
			Records:          cfg.Records,
			RecordsOverwrite: cfg.RecordsOverwrite,
			OnRecordsError: func(err error) {
				say("error: %v: the records from here on are lost (counted); the run will fail", err)
			},
			Scrape:        scrape,
			ScrapeOptions: append([]serverstats.Option{serverstats.WithAllow(allowList.Allows)}, cfg.ScrapeOptions...),
			Grace:         StopGrace,
			Ready: func(s *helper.Server) error {
				if scrape != "" {
					say("scraping %s every %v: each record carries the server's queue depth (server_waiting) and running requests", scrape, serverstats.DefaultInterval)
				}
				ready <- s
				return nil
			},
		})
		stopped <- outcome{served, err}
	}()
	select {
	case hs := <-ready:
		return hs, func() (helper.Served, error) {
			cancel()
			o := <-stopped
			return o.served, o.err
		}, nil
	case o := <-stopped:
		cancel()
		return nil, nil, o.err
	}
}

// reportFailures says why requests failed, once k6 has exited: how many, by
// error kind, with the first (redacted) message of each kind, e.g.
// "3 requests failed: connect ×3 — e.g. POST http://127.0.0.1:9/v1/chat/completions: dial tcp 127.0.0.1:9: connect: connection refused".
func reportFailures(kinds []helper.FailureKind, say func(string, ...any)) {
	total := int64(0)
	for _, k := range kinds {
		total += k.Count
	}
	switch {
	case total == 0:
		return
	case len(kinds) == 1:
		say("%s failed: %s ×%d — e.g. %s", requests(total), kinds[0].Kind, kinds[0].Count, kinds[0].Example)
		return
	}
	say("%s failed, by kind:", requests(total))
	for _, k := range kinds {
		say("  %s ×%d — e.g. %s", k.Kind, k.Count, k.Example)
	}
}

func requests(n int64) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

// LimitedWarning starts the warning printed at the end of a run that the
// load-generator rule (headroom.Judge) finds limited.
const LimitedWarning = "warning: " + headroom.Warning

// reportHealth prints the load-generator warning when the helper's health
// (headroom.Judge on the client lag's and the CPU idle share's medians)
// finds the run limited: a first line of at most 200 characters naming the
// page that explains it, then the figures.
func reportHealth(h helper.Health, say func(string, ...any)) {
	if !h.Limited {
		return
	}
	say("warning: %s", headroom.Line(h.Reason))
	figs := fmt.Sprintf("  llm_client_lag over %d requests", h.LagSamples)
	if h.LagP50MS != nil && h.LagP99MS != nil {
		figs += fmt.Sprintf(": p50 %.3g ms, p99 %.3g ms", *h.LagP50MS, *h.LagP99MS)
	}
	if h.CPUIdleP50 != nil {
		figs += fmt.Sprintf("; CPUs %.0f%% idle while the median request ran", 100**h.CPUIdleP50)
	}
	if h.ITLZeroShare != nil {
		figs += fmt.Sprintf("; %.1f%% of %d ITL gaps were 0", 100**h.ITLZeroShare, h.ITLGaps)
	}
	say("%s. xk6-llmstream calibrate measures this machine's error at this load; if it is the bottleneck, run fewer VUs per machine or more machines", figs)
}

// DegradedWarning starts the warning printed at the end of a run whose
// open-loop load (replay(), arrivals()) was sent late (helper.Health.Degraded).
const DegradedWarning = "warning: the replay was degraded"

// reportSendLag prints the send lag of open-loop load, and the warning when
// it passed the documented bounds (loadgen.JudgeSendLag).
func reportSendLag(h helper.Health, say func(string, ...any)) {
	if h.SendLagSamples == 0 {
		return
	}
	fig := fmt.Sprintf("send lag of %d scheduled requests: p50 %.3g ms, p99 %.3g ms, max %.3g ms",
		h.SendLagSamples, *h.SendLagP50MS, *h.SendLagP99MS, *h.SendLagMaxMS)
	if !h.Degraded {
		say("%s", fig)
		return
	}
	say("%s: %s (%s). The offered load lost the trace's timing: raise replay()'s maxInFlight, lower its speedup, or give k6 more CPU; llm_ttft_scheduled and llm_e2e_scheduled include each request's lag", DegradedWarning, h.DegradedReason, fig)
}

// chooseUpstream decides whether the run uses the mock (and why: --mock, or
// no LLM_BASE_URL) and builds the helper's allow-list: cfg.Allow, plus the
// host of LLM_BASE_URL when the run uses it.
func chooseUpstream(cfg Config, env []string) (useMock bool, why string, allowList *helper.AllowList, err error) {
	allow := append([]string(nil), cfg.Allow...)
	useMock = cfg.Mock || cfg.MockProfile != ""
	baseURL := strings.TrimSpace(LookupEnv(env, BaseURLEnv))
	why = "--mock"
	if baseURL == "" {
		useMock, why = true, BaseURLEnv+" is not set"
	}
	if !useMock {
		u, err := checkBaseURL(baseURL)
		if err != nil {
			return false, "", nil, err
		}
		allow = append(allow, AllowEntry(u))
	}
	allowList, err = helper.ParseAllowList(allow...)
	if err != nil {
		return false, "", nil, err
	}
	return useMock, why, allowList, nil
}

// scrapeURL is the URL of --scrape (serverstats.Mock: the run's mock); ""
// without one.
func scrapeURL(scrape string, mock *mockServer) (string, error) {
	switch {
	case scrape == serverstats.Mock && mock == nil:
		return "", fmt.Errorf("--scrape mock: this run starts no mock (%s is set, without --mock or --mock-profile); give the server's /metrics URL", BaseURLEnv)
	case scrape == serverstats.Mock:
		return mock.url + "/metrics", nil
	}
	return scrape, nil
}

func lastError(msg string) string {
	if msg == "" {
		return ""
	}
	return " (last: " + msg + ")"
}

// helperOptions are the helper's options for one run: its token and
// allow-list, a logger prefixed on stderr (debug with Verbose), then
// cfg.HelperOptions.
func helperOptions(cfg Config, token string, allowList *helper.AllowList, stderr io.Writer) []helper.Option {
	level := slog.LevelWarn
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(&prefixWriter{w: stderr, prefix: "xk6-llmstream: helper: "},
		&slog.HandlerOptions{Level: level, ReplaceAttr: dropTime}))
	return append([]helper.Option{
		helper.WithToken(token),
		helper.WithAllowList(allowList),
		helper.WithLogger(logger),
	}, cfg.HelperOptions...)
}

// k6Command is `k6 run ARGS` with env and cfg's standard streams.
func k6Command(k6 string, cfg Config, env []string) *exec.Cmd {
	cmd := exec.Command(k6, append([]string{"run"}, cfg.Args...)...)
	cmd.Env = K6GCEnv(env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = cfg.Stdin, cfg.Stdout, cfg.Stderr
	cmd.WaitDelay = WaitDelay
	prepare(cmd)
	return cmd
}

// reportExit says how k6 exited.
func reportExit(code int, say func(string, ...any)) {
	switch code {
	case 0:
	case ExitThresholdsFailed:
		say("k6 exited with code %d: thresholds failed", code)
	default:
		say("k6 exited with code %d", code)
	}
}

// supervise waits for k6 to exit, forwarding signals and the end of ctx.
func supervise(ctx context.Context, cmd *exec.Cmd, waitErr <-chan error, signals <-chan os.Signal, say func(string, ...any)) (int, error) {
	var killTimer <-chan time.Time
	forwarded := false
	done := ctx.Done()
	for {
		select {
		case err := <-waitErr:
			st := cmd.ProcessState
			if st == nil {
				return 0, fmt.Errorf("waiting for k6: %w", err)
			}
			if code := st.ExitCode(); code >= 0 {
				return code, nil
			}
			if code, ok := signalExitCode(st); ok {
				return code, nil
			}
			return 1, nil
		case sig := <-signals:
			if forwarded {
				say("second signal (%v): killing k6", sig)
				_ = cmd.Process.Kill()
				continue
			}
			forwarded = true
			say("forwarding %v to k6 (send it again to kill k6)", sig)
			if err := forward(cmd.Process, sig); err != nil {
				say("warning: forwarding %v to k6: %v", sig, err)
			}
		case <-done:
			done = nil
			say("stopping k6: %v", context.Cause(ctx))
			if err := forward(cmd.Process, os.Interrupt); err != nil {
				_ = cmd.Process.Kill()
			}
			killTimer = time.After(KillGrace)
		case <-killTimer:
			say("k6 did not stop within %v: killing it", KillGrace)
			_ = cmd.Process.Kill()
		}
	}
}

// AllowEntry is the allow-list entry (helper.ParseAllowList) for the host of
// LLM_BASE_URL, as run and calibrate's probe allow it: host:port when the
// URL names a port, else the host on any port.
func AllowEntry(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return u.Hostname()
}

// newToken returns a random bearer token for this run's helper, so that other
// local users cannot use it while k6 runs.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the helper token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// prefixWriter prefixes each Write (one log record) with prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	line := make([]byte, 0, len(p.prefix)+len(b))
	line = append(append(line, p.prefix...), b...)
	if _, err := p.w.Write(line); err != nil {
		return 0, err
	}
	return len(b), nil
}

// dropTime removes the time attribute from log records (k6 prints its own).
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
