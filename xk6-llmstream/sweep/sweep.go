package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
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
	// where k6's own output goes.
	Out, Log string
	// Signals are to be forwarded to k6 while it runs.
	Signals <-chan os.Signal
	// OnMock, when set, is to be told the base URL of a mock started for
	// the level (the scraper's "mock" target).
	OnMock func(url string)
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
	res := &Result{Version: ResultVersion, Mode: cfg.Spec.Mode.String(), Unit: cfg.Spec.Mode.Unit(),
		Script: cfg.Script, Confidence: cfg.Spec.Confidence, SLO: sources(cfg.Spec.SLO), Levels: []Level{}}
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
		run := Run{Index: len(res.Levels) + 1, Offered: offered, Signals: inner,
			Out: filepath.Join(cfg.OutDir, "level-"+FormatLevel(offered)+".json.gz"),
			Log: filepath.Join(cfg.OutDir, "level-"+FormatLevel(offered)+".log")}
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
		p.after(lv, run, cfg.Spec.Mode)
		if lv.K6ExitCode != 0 && lv.K6ExitCode != ExitThresholdsFailed || interrupted.Load() {
			return finish(res), abortAt(res, &lv, interrupted.Load())
		}
	}
	return finish(res), nil
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

// relay forwards signals to inner and notes that one came; the returned
// function stops it.
func relay(from <-chan os.Signal, inner chan os.Signal, flag *atomic.Bool) func() {
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

func sources(cs []thresholds.Check) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Source)
	}
	return out
}
