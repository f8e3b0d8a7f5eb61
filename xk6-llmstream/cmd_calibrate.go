package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/calibrate"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

const calibrateUsage = `usage: xk6-llmstream calibrate [flags] script.js [k6 run flags...]

Measures the client's own error on this machine at the load your script
declares: runs the script (helper and stock k6, as run does) against the mock
LLM shaped like your target (--ttft, --itl, --output-tokens, or --probe N:
N requests to the real endpoint first), then compares
what the helper measured with the mock's ground truth (the write time of every
event). Prints the TTFT error, the mid-stream delivery lag, the ITL error, the
share of zero gaps, the CPU headroom and one verdict: how many milliseconds
numbers from this machine can be trusted to at this load, or that this machine
is the bottleneck. Run it before a capacity test and on every new
load-generator machine (docs/calibrate.md). The script runs against the mock:
LLM_BASE_URL is used only by --probe, which sends N streamed requests, one
after the other, to LLM_BASE_URL (with LLM_API_KEY, LLM_MODEL, LLM_API:
openai-chat, openai-completions or anthropic-messages, and LLM_MAX_TOKENS,
default --output-tokens) and shapes the mock with their median TTFT, median
gap and median length; a flag given as well wins over the probe's figure.
Each probe request may take --probe-timeout (2m); SIGINT or SIGTERM stops
the probe at once and calibrate exits 128+N after saying what the finished
requests measured.

Exits 0 when the machine is good at this load, 1 when it is the bottleneck,
2 for bad usage.

Examples:
  xk6-llmstream calibrate --ttft 300ms --itl 25ms --output-tokens 200 scripts/ramping-vus.js
  xk6-llmstream calibrate --format json scripts/ramping-vus.js -e LLM_MAX_VUS=50
  LLM_BASE_URL=http://127.0.0.1:8000/v1 LLM_MODEL=my-model xk6-llmstream calibrate --probe 5 scripts/ramping-vus.js

Flags (before the script):
`

// runCalibrate is the calibrate command.
func runCalibrate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	return calibrateCmd(context.Background(), args, stdin, stdout, stderr, signals, nil)
}

func calibrateCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, signals <-chan os.Signal, env []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, calibrateUsage)
		fs.PrintDefaults()
	}
	ttft := fs.Duration("ttft", 200*time.Millisecond, "the target's time to first token (the mock's prefill)")
	itl := fs.Duration("itl", 20*time.Millisecond, "the target's inter-token latency")
	tokens := fs.Int("output-tokens", 128, "the target's answer length in tokens (a request's max_tokens caps it)")
	format := fs.String("format", "text", "report format: text or json")
	k6Nice := fs.Int("k6-nice", runner.DefaultK6Nice, "run k6 this many steps of CPU priority below the helper (0-19)")
	k6Idle := fs.Bool("k6-idle", true, "run k6 under SCHED_IDLE (Linux): any other thread preempts it at once")
	keep := fs.String("keep", "", "keep the records and the mock's log in this `folder` (default: a temporary one, removed)")
	probe := fs.Int("probe", 0, "shape the mock from `N` streamed requests to LLM_BASE_URL first (0: from the flags alone)")
	probeTimeout := fs.Duration("probe-timeout", calibrate.DefaultProbeTimeout, "bound each --probe request to this `duration`, headers to the end of the answer")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return usageError{Err: err}
	}
	rest := fs.Args()
	switch {
	case len(rest) == 0:
		return usagef("missing the k6 script: xk6-llmstream calibrate [flags] script.js [k6 run flags...]")
	case *format != "text" && *format != "json":
		return usagef("--format %q: want text or json", *format)
	case *ttft < 0 || *itl <= 0 || *tokens < 1:
		return usagef("want --ttft ≥ 0, --itl > 0 and --output-tokens ≥ 1, got %v, %v, %d", *ttft, *itl, *tokens)
	case *probe < 0:
		return usagef("--probe %d: want a number of requests ≥ 0", *probe)
	case *probeTimeout <= 0:
		return usagef("--probe-timeout %v: want a duration > 0", *probeTimeout)
	}
	shape := calibrate.MockShape{TTFT: *ttft, ITL: *itl, OutputTokens: *tokens, From: "flags"}
	if *probe > 0 {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		s, err := probeUntilSignal(ctx, signals, stderr, func(ctx context.Context) (calibrate.Probed, error) {
			return probeTarget(ctx, env, *probe, *tokens, *probeTimeout, stderr)
		})
		if err != nil {
			return err
		}
		shape = s.Over(shape, set["ttft"], set["itl"], set["output-tokens"])
	}
	if err := runner.CheckK6Nice(*k6Nice); err != nil {
		return usagef("--k6-nice %d: want a whole number from 0 to %d", *k6Nice, runner.MaxK6Nice)
	}
	if *keep != "" {
		if err := os.MkdirAll(*keep, 0o755); err != nil {
			return err
		}
	}
	mockCmd, err := mockCommand(env)
	if err != nil {
		return err
	}
	res, err := calibrate.Run(ctx, calibrate.Config{
		Args: rest, Shape: shape,
		Env: env, Stdin: stdin, Stdout: stderr, Stderr: stderr, Signals: signals, K6Nice: *k6Nice, K6Idle: *k6Idle, Dir: *keep,
		MockCmd: mockCmd,
	})
	if err != nil {
		return err
	}
	if *format == "json" {
		err = calibrate.WriteJSON(stdout, res)
	} else {
		err = calibrate.WriteText(stdout, res)
	}
	if err != nil {
		return err
	}
	if res.Bottleneck || res.Matched == 0 {
		return exitCodeError{1}
	}
	return nil
}

// probeTarget probes the endpoint of LLM_BASE_URL (in env, nil: this
// process's environment) with n requests and says what it measured.
func probeTarget(ctx context.Context, env []string, n, tokens int, timeout time.Duration, stderr io.Writer) (calibrate.Probed, error) {
	get := os.Getenv
	if env != nil {
		get = func(k string) string { return runner.LookupEnv(env, k) }
	}
	base := get(runner.BaseURLEnv)
	if base == "" {
		return calibrate.Probed{}, usagef("--probe needs %s: the endpoint to probe", runner.BaseURLEnv)
	}
	maxTokens := tokens
	if v := get("LLM_MAX_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return calibrate.Probed{}, usagef("LLM_MAX_TOKENS=%q: want a whole number ≥ 1", v)
		}
		maxTokens = n
	}
	p, err := calibrate.Probe(ctx, calibrate.ProbeConfig{BaseURL: base, APIKey: get("LLM_API_KEY"), Model: get("LLM_MODEL"),
		API: get("LLM_API"), MaxTokens: maxTokens, Requests: n, Prompt: calibrate.ProbePrompt, Timeout: timeout})
	if err != nil {
		return calibrate.Probed{}, err
	}
	fmt.Fprintf(stderr, "calibrate: %s\n", p)
	return p, nil
}

// probeUntilSignal runs probe with a context that a signal (SIGINT, SIGTERM,
// SIGHUP) cancels: the probe stops at once and calibrate exits 128+N, as a
// process killed by signal N, after printing what the finished requests
// measured. The watch ends with the probe, so that the run after it gets
// the signals (they go to k6).
func probeUntilSignal(ctx context.Context, signals <-chan os.Signal, stderr io.Writer,
	probe func(context.Context) (calibrate.Probed, error)) (calibrate.Probed, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan os.Signal, 1)
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case sig := <-signals:
			got <- sig
			cancel()
		case <-done:
		}
	}()
	p, err := probe(ctx)
	close(done)
	<-watched
	select {
	case sig := <-got:
		if err == nil { // the last request had just finished
			err = calibrate.ErrProbeInterrupted
		}
		fmt.Fprintf(stderr, "xk6-llmstream calibrate: %v: %v\n", sig, err)
		return calibrate.Probed{}, exitCodeError{signalCode(sig)}
	default:
	}
	return p, err
}

// signalCode is the shell's exit status of a process stopped by sig:
// 128 + its number (130 for SIGINT, 143 for SIGTERM).
func signalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}
