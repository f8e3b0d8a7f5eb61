package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// Serve is a server sweep's server: Command (a /bin/sh command line) is
// started once per point of Grid, with the point's environment variables
// and flags, and the whole sweep (Config's plan) runs against it.
type Serve struct {
	Command string
	Grid    []Point
	Env     []string // the server's environment before the point's (nil: os.Environ())
	// ReadyURL (http://127.0.0.1…) is polled until it answers 2xx, for at
	// most ReadyTimeout; StopTimeout is the server's grace after SIGTERM.
	ReadyURL                  string
	ReadyTimeout, StopTimeout time.Duration
}

// Server sweep defaults.
const (
	DefaultReadyTimeout = 2 * time.Minute
	DefaultStopTimeout  = 10 * time.Second
)

// ExecuteServe runs a server sweep, a configuration at a time: it starts the
// server, waits until it answers, runs the sweep (Execute) with its output
// under OutDir/config-<n>, and stops the server's process group. A
// configuration whose server does not start, does not answer or dies, or
// where k6 fails, is recorded as failed with why, and the next one runs.
// After a signal (forwarded to k6) the configuration running ends, the
// others are recorded as not run, and the error is an *AbortError with code
// 130. The result always holds what was done; the error is also set when k6
// could not be run at all.
func ExecuteServe(ctx context.Context, cfg Config, sv Serve) (*Result, error) {
	if !serveSupported {
		return nil, errors.New("--serve needs process groups (Linux, macOS, BSD)")
	}
	res := newResult(cfg)
	res.Configs = []ConfigResult{}
	var interrupted atomic.Bool
	sigCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	inner := make(chan os.Signal, 2)
	stopRelay := relay(cfg.Signals, inner, &interrupted, func() { cancel(errors.New("interrupted by a signal")) })
	defer stopRelay()
	var fatal error
	hide := secrets(sv.Env)
	for i, pt := range sv.Grid {
		cr := ConfigResult{Index: i + 1, Name: hide.String(pt.Name()), Params: slices.Clone(pt),
			Command: hide.String(commandLine(sv.Command, pt.Args())), Levels: []Level{}}
		for j := range cr.Params {
			cr.Params[j].Value = hide.String(cr.Params[j].Value)
		}
		if interrupted.Load() || fatal != nil {
			cr.Status, cr.Reason = ConfigNotRun, "the sweep stopped before it"
			res.Configs = append(res.Configs, cr)
			continue
		}
		c := cfg
		c.OutDir, c.Signals = filepath.Join(cfg.OutDir, fmt.Sprintf("config-%d", i+1)), inner
		fmt.Fprintf(progressOut(cfg), "configuration %d of %d (%s): starting %s\n", i+1, len(sv.Grid), cr.Name, cr.Command)
		fatal = runConfig(ctx, sigCtx, c, sv, pt, &cr)
		if interrupted.Load() && cr.Status == ConfigDone {
			cr.Status, cr.Reason = ConfigInterrupted, "interrupted by a signal"
		}
		cr.Reason = hide.String(cr.Reason)
		fmt.Fprintf(progressOut(cfg), "configuration %d of %d (%s): %s %s\n", i+1, len(sv.Grid), cr.Name, cr.Status, cr.Reason)
		res.Configs = append(res.Configs, cr)
	}
	res.Stopped = serveStopped(res)
	switch {
	case fatal != nil:
		return res, fatal
	case interrupted.Load():
		return res, &AbortError{Code: 130, Msg: "interrupted by a signal"}
	}
	return res, nil
}

// runConfig runs one configuration into cr; it returns an error only when
// the sweep cannot go on (k6 not found).
func runConfig(ctx, sigCtx context.Context, cfg Config, sv Serve, pt Point, cr *ConfigResult) error {
	fail := func(status, why string) error { cr.Status, cr.Reason = status, why; return nil }
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return fail(ConfigFailed, err.Error())
	}
	env := sv.Env
	if env == nil {
		env = os.Environ()
	}
	srv := &Server{Command: sv.Command, Env: withEnv(env, envMap(pt.Env())), Args: pt.Args(),
		Log: filepath.Join(cfg.OutDir, "server.log"), ReadyURL: sv.ReadyURL, ReadyTimeout: sv.ReadyTimeout, StopTimeout: sv.StopTimeout}
	cr.ServerLog = srv.Log
	start := time.Now()
	if err := srv.Start(); err != nil {
		return fail(ConfigFailed, err.Error())
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			cr.Status, cr.Reason = ConfigFailed, strings.TrimPrefix(cr.Reason+"; ", "; ")+err.Error()
		}
	}()
	if err := srv.Wait(sigCtx); err != nil {
		if sigCtx.Err() != nil {
			return fail(ConfigInterrupted, "interrupted while the server started")
		}
		return fail(ConfigFailed, err.Error())
	}
	cr.ReadyS = num(time.Since(start).Seconds())
	// The server's death ends the level running (k6 is interrupted) and the
	// plan, so that what ran is kept.
	lvCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-srv.Exited():
			cancel(fmt.Errorf("the server %s", srv.ExitReason()))
		case <-lvCtx.Done():
		}
	}()
	cfg.Plan = whileUp{Plan: cfg.Plan, srv: srv}
	sub, err := Execute(lvCtx, cfg)
	died := srv.ExitReason()
	if sub != nil {
		cr.Levels, cr.MaxPassing, cr.Saturation, cr.Stopped, cr.K6ExitCode = sub.Levels, sub.MaxPassing, sub.Saturation, sub.Stopped, sub.K6ExitCode
	}
	var abort *AbortError
	switch {
	case died != "":
		return fail(ConfigFailed, fmt.Sprintf("the server %s%s; its log: %s", died, lastLevel(cr.Levels, cfg.Spec.Mode), tail(srv.Log)))
	case errors.Is(err, runner.ErrK6NotFound):
		fail(ConfigFailed, err.Error())
		return err
	case errors.As(err, &abort) && sigCtx.Err() != nil:
		return fail(ConfigInterrupted, abort.Msg)
	case err != nil:
		return fail(ConfigFailed, err.Error())
	}
	cr.Status = ConfigDone
	return nil
}

// whileUp ends a plan once the server has exited.
type whileUp struct {
	Plan
	srv *Server
}

// Next implements Plan.
func (w whileUp) Next(done []Level) (float64, bool, string) {
	if why := w.srv.ExitReason(); why != "" {
		return 0, false, "the server " + why
	}
	return w.Plan.Next(done)
}

// lastLevel names the last level run, where a server that died was.
func lastLevel(done []Level, m Mode) string {
	if len(done) == 0 {
		return " before the first level"
	}
	l := done[len(done)-1]
	return fmt.Sprintf(" during level %d (%s %s) or after it", l.Index, FormatLevel(l.Offered), m.Unit())
}

// serveStopped says how a server sweep ended.
func serveStopped(res *Result) string {
	n := map[string]int{}
	for _, c := range res.Configs {
		n[c.Status]++
	}
	var parts []string
	for _, s := range []string{ConfigDone, ConfigFailed, ConfigInterrupted, ConfigNotRun} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	return fmt.Sprintf("%d configurations: %s", len(res.Configs), strings.Join(parts, ", "))
}

// secrets is what hides the API key (LLM_API_KEY of env, nil: the
// process's) and key-shaped words in what a server sweep records of the
// server: its command line, and the end of its log in a reason.
func secrets(env []string) *redact.Redactor {
	if env == nil {
		env = os.Environ()
	}
	h := http.Header{}
	if key := runner.LookupEnv(env, APIKeyEnv); key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return redact.New(h, nil)
}

// APIKeyEnv holds the API key the scripts send (scripts/capacity.js).
const APIKeyEnv = "LLM_API_KEY"

// commandLine is the server's command with its flags, for the record.
func commandLine(cmd string, args []string) string {
	for _, a := range args {
		cmd += " " + a
	}
	return cmd
}

func envMap(kvs []string) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// progressOut is where progress goes (nowhere without Config.Progress).
func progressOut(cfg Config) io.Writer {
	if cfg.Progress == nil {
		return io.Discard
	}
	return cfg.Progress
}
