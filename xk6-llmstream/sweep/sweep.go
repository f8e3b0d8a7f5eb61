package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// ExitThresholdsFailed is k6's exit code when the script's own thresholds
// failed: within a sweep that is data, not an abort.
const ExitThresholdsFailed = 99

// Executor runs the k6 script at one level.
type Executor interface {
	// Run runs one level and returns k6's exit code; err is set only when
	// k6 could not be run at all.
	Run(ctx context.Context, lv Run) (code int, err error)
}

// Run is one level to run.
type Run struct {
	Index   int
	Offered float64
	// Out is where k6 writes the level's samples (--out json=Out); Log
	// where k6's own output goes; Records, when set, where the helper
	// writes the level's records (a deadline SLO: RecordsPath(Out)).
	Out, Log, Records string
	// Signals are to be forwarded to k6 while it runs.
	Signals <-chan os.Signal
	// OnMock, when set, is to be told the base URL of a mock started for
	// the level (the scraper's "mock" target).
	OnMock func(url string)
	// Env is added to k6's environment for the level (the cache-bust salt).
	Env map[string]string
}

// Config is a sweep.
type Config struct {
	Spec   Spec
	Plan   Plan
	Exec   Executor
	Reader Reader // nil: K6JSON
	// OutDir receives level-<n>.json.gz and level-<n>.log per level.
	OutDir string
	// Script names the script in the result.
	Script string
	// LevelDuration, when known, gives progress an estimate before the
	// first level ends.
	LevelDuration time.Duration
	// Progress receives one line before and after each level (nil: none).
	Progress io.Writer
	// Signals are forwarded to the running k6; after one, the sweep ends
	// once that level is done.
	Signals <-chan os.Signal
	// Scrape, when its URL is set, scrapes the server's Prometheus metrics
	// during each level into Level.Server.
	Scrape Scrape
	// NoCacheBust leaves the prompts as the script makes them; by default
	// each level gets a fresh salt (LLM_CACHE_SALT, with LLM_CACHE_BUST=1)
	// that every Client puts at the start of every prompt, so no level is
	// served from the prefix cache an earlier one built (docs/traffic.md).
	NoCacheBust bool
	// NewSalt makes a level's salt (nil: runner.NewCacheSalt).
	NewSalt func() string
}

// salt is a fresh salt for a level ("" without busting).
func (cfg Config) salt() string {
	switch {
	case cfg.NoCacheBust:
		return ""
	case cfg.NewSalt != nil:
		return cfg.NewSalt()
	}
	return runner.NewCacheSalt()
}

// AbortError ends a sweep early: k6 failed at a level (an exit code other
// than 0 or 99), or a signal interrupted it. Code is the exit code to exit
// with: k6's, or 130 after a signal when k6 exited 0 or 99.
type AbortError struct {
	Code int
	Msg  string
}

func (e *AbortError) Error() string { return e.Msg }

// Execute runs the sweep. It returns the result so far with an *AbortError
// when k6 failed or a signal came, and a nil result when a level's output
// could not be read.
func Execute(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Reader == nil {
		cfg.Reader = K6JSON{}
	}
	if cfg.Spec.LevelDuration == 0 {
		cfg.Spec.LevelDuration = cfg.LevelDuration
	}
	res := newResult(cfg)
	var interrupted atomic.Bool
	inner := make(chan os.Signal, 2)
	stopRelay := relay(cfg.Signals, inner, &interrupted)
	defer stopRelay()
	p := progress{w: cfg.Progress, start: time.Now(), guess: cfg.LevelDuration}
	for {
		offered, ok, why := cfg.Plan.Next(res.Levels)
		if !ok {
			res.Stopped = why
			break
		}
		if interrupted.Load() {
			res.Stopped = "interrupted"
			return finish(res), &AbortError{Code: 130, Msg: "interrupted by a signal"}
		}
		run := Run{Index: len(res.Levels) + 1, Offered: offered, Signals: inner, Env: cacheBustEnv(cfg.salt()),
			Out: filepath.Join(cfg.OutDir, "level-"+FormatLevel(offered)+".json.gz"),
			Log: filepath.Join(cfg.OutDir, "level-"+FormatLevel(offered)+".log")}
		if cfg.Spec.Deadline != nil {
			run.Records = RecordsPath(run.Out)
		}
		p.before(run, cfg.Spec.Mode, cfg.Plan.Left(res.Levels))
		lv, err := runLevel(ctx, cfg, run, res.Levels)
		if err != nil {
			return nil, err
		}
		if interrupted.Load() {
			lv.Pass, lv.Verdict = false, result.Inconclusive
			lv.Saturation = append(lv.Saturation, "interrupted: the level was cut short")
		}
		res.Levels = append(res.Levels, lv)
		res.CacheWarning = CacheWarning(res.Levels, res.CacheBust)
		p.after(lv, run, cfg.Spec.Mode)
		if lv.K6ExitCode != 0 && lv.K6ExitCode != ExitThresholdsFailed || interrupted.Load() {
			return finish(res), abortAt(res, &lv, interrupted.Load())
		}
	}
	return finish(res), nil
}

// newResult is a result's header, without levels yet.
func newResult(cfg Config) *Result {
	return &Result{Version: ResultVersion, Mode: cfg.Spec.Mode.String(), Unit: cfg.Spec.Mode.Unit(),
		Script: cfg.Script, Confidence: cfg.Spec.Confidence, SLO: sources(cfg.Spec.SLO, cfg.Spec.Deadline), Levels: []Level{}, CacheBust: !cfg.NoCacheBust}
}

// runLevel runs one level and judges its output.
func runLevel(ctx context.Context, cfg Config, run Run, done []Level) (Level, error) {
	start := time.Now()
	sc := cfg.Scrape.start(ctx, start)
	run.OnMock = sc.mockStarted
	code, err := cfg.Exec.Run(ctx, run)
	server := sc.stop()
	if err != nil {
		return Level{}, err
	}
	analysis := time.Now()
	rd, err := cfg.Reader.Read(run.Out, cfg.Spec.Want())
	if code != 0 && code != ExitThresholdsFailed {
		// k6 failed or was interrupted: the level fails, but its summary
		// counts the requests its output holds, when it can be read.
		lv := Level{Offered: run.Offered, Limits: []LimitVerdict{}, Saturation: []string{}, Incomplete: []string{}}
		if err == nil {
			lv = cfg.Spec.Evaluate(rd, run.Offered, highestBelow(done, run.Offered))
		}
		lv.Index, lv.File, lv.K6ExitCode, lv.Server = run.Index, run.Out, code, server
		lv.Verdict, lv.Pass = result.Fail, false
		lv.AnalysisS, lv.ElapsedS = time.Since(analysis).Seconds(), time.Since(start).Seconds()
		return lv, nil
	}
	if err != nil {
		return Level{}, fmt.Errorf("level %s: reading k6's output: %w (k6's log: %s)", FormatLevel(run.Offered), err, run.Log)
	}
	lv := cfg.Spec.Evaluate(rd, run.Offered, highestBelow(done, run.Offered))
	lv.Index, lv.File, lv.K6ExitCode, lv.Server = run.Index, run.Out, code, server
	lv.setEnergy()
	lv.AnalysisS = time.Since(analysis).Seconds()
	lv.ElapsedS = time.Since(start).Seconds()
	return lv, nil
}

// abortAt is the error for a sweep that ends at level lv.
func abortAt(res *Result, lv *Level, interrupted bool) error {
	res.K6ExitCode = lv.K6ExitCode
	if interrupted {
		res.Stopped = fmt.Sprintf("interrupted at level %s", FormatLevel(lv.Offered))
		code := lv.K6ExitCode
		if code == 0 || code == ExitThresholdsFailed {
			code = 130
		}
		return &AbortError{Code: code, Msg: res.Stopped}
	}
	res.Stopped = fmt.Sprintf("k6 exited with code %d at level %s", lv.K6ExitCode, FormatLevel(lv.Offered))
	return &AbortError{Code: lv.K6ExitCode, Msg: res.Stopped}
}

// finish fills in the sweep's answer.
func finish(res *Result) *Result {
	res.MaxPassing = num(MaxPassing(res.Levels))
	for _, l := range res.Levels {
		if l.Verdict == result.Saturated && (res.Saturation == nil || l.Offered < *res.Saturation) {
			res.Saturation = num(l.Offered)
		}
	}
	return res
}

// highestBelow is the highest level run below offered (nil: none).
func highestBelow(done []Level, offered float64) *Level {
	var b *Level
	for i := range done {
		if done[i].Offered < offered && (b == nil || done[i].Offered > b.Offered) {
			b = &done[i]
		}
	}
	return b
}

// relay forwards signals to inner and notes that one came (and calls
// onSignal, when given); the returned function stops it.
func relay(from <-chan os.Signal, inner chan os.Signal, flag *atomic.Bool, onSignal ...func()) func() {
	if from == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case sig := <-from:
				flag.Store(true)
				for _, f := range onSignal {
					f()
				}
				select {
				case inner <- sig:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}

func sources(cs []thresholds.Check, d *metrics.Deadline) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Source)
	}
	if d != nil {
		out = append(out, d.String())
	}
	return out
}
