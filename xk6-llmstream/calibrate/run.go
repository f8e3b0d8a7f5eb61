package calibrate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// Config is a calibration run.
type Config struct {
	// Args are the script and the "k6 run" flags after it, as for run.
	Args []string
	// Shape is the target's: the mock's TTFT (prefill), ITL and output
	// tokens, and what gave them.
	Shape MockShape
	// Env is k6's environment (nil: the process's); LLM_BASE_URL is set to
	// the mock whatever it says (runner.Config.Mock).
	Env            []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer // k6's and the runner's output
	Signals        <-chan os.Signal
	K6Nice         int
	K6Idle         bool
	// Dir keeps the records and the mock's log (a temporary folder when "",
	// removed after the run).
	Dir    string
	Limits Limits
	// MockCmd serves the mock in a process of its own (runner.Config's);
	// nil serves it in this process, whose Go runtime the helper then
	// shares: the mock's cost enters the figures.
	MockCmd func(args ...string) *exec.Cmd
}

// Result is a calibration's report, the mock it ran against and k6's exit
// code.
type Result struct {
	*Report
	Mock   MockShape `json:"mock"`
	K6Exit int       `json:"k6_exit"`
}

// MockShape is the mock a calibration runs against, and what shaped it:
// "flags", or the probe (Probed.String).
type MockShape struct {
	TTFT         time.Duration `json:"-"`
	ITL          time.Duration `json:"-"`
	OutputTokens int           `json:"output_tokens"`
	TTFTMS       float64       `json:"ttft_ms"`
	ITLMS        float64       `json:"itl_ms"`
	From         string        `json:"from"`
}

// MockConfig is the mock shaped like the target: a fixed prefill, ITL and
// output length, no jitter, no faults, unlimited slots (the mock must not be
// what limits the run).
func MockConfig(ttft, itl time.Duration, tokens int) mockllm.Config {
	cfg := mockllm.DefaultConfig()
	cfg.Default = mockllm.ModelConfig{
		Prefill:      mockllm.Prefill{Base: ttft},
		ITL:          mockllm.ITL{Base: itl},
		OutputTokens: mockllm.FixedCount(tokens),
	}
	return cfg
}

// Run runs the calibration.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	sh := cfg.Shape
	if sh.TTFT < 0 || sh.ITL <= 0 || sh.OutputTokens < 1 {
		return nil, fmt.Errorf("calibrate: want a TTFT ≥ 0, an ITL > 0 and output tokens ≥ 1, got %v, %v, %d", sh.TTFT, sh.ITL, sh.OutputTokens)
	}
	sh.TTFTMS, sh.ITLMS = ms64(sh.TTFT), ms64(sh.ITL)
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "xk6-llmstream-calibrate-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	logPath := filepath.Join(dir, "mock-log.jsonl")
	recPath := filepath.Join(dir, "calibrate.records.jsonl")
	// The mock shaped like the target, as a profile the runner's mock reads
	// (in this process, or in a process of its own with MockCmd).
	profilePath := filepath.Join(dir, "mock-profile.json")
	profile, err := MockConfig(sh.TTFT, sh.ITL, sh.OutputTokens).Profile()
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(profilePath, profile, 0o600); err != nil {
		return nil, err
	}

	before, cpuErr := headroom.ReadCPU()
	code, runErr := runner.Run(ctx, runner.Config{
		Args: cfg.Args, Env: cfg.Env, Stdin: cfg.Stdin, Stdout: cfg.Stdout, Stderr: cfg.Stderr,
		Signals: cfg.Signals, Records: recPath, K6Nice: cfg.K6Nice, K6Idle: cfg.K6Idle,
		Mock: true, MockProfile: profilePath, MockLog: logPath, MockCmd: cfg.MockCmd, NoLoadGenWarning: true,
	})
	after, cpuErr2 := headroom.ReadCPU()
	if runErr != nil {
		return nil, runErr
	}

	recs, err := readRecords(recPath)
	if err != nil {
		return nil, err
	}
	logs, err := readLog(logPath)
	if err != nil {
		return nil, err
	}
	var headroom *float64
	if cpuErr == nil && cpuErr2 == nil {
		headroom = after.IdleSince(before)
	}
	lim := cfg.Limits
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	return &Result{Report: Analyze(recs, logs, headroom, runtime.NumCPU(), sh.ITL, lim), Mock: sh, K6Exit: code}, nil
}

func readRecords(path string) ([]records.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []records.Record
	if _, err := records.ScanWith(f, records.ScanOptions{}, func(r *records.Record) error {
		out = append(out, *r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("calibrate: the helper's records %s: %w", path, err)
	}
	return out, nil
}

func readLog(path string) ([]mockllm.RequestLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mockllm.RequestLog
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var l mockllm.RequestLog
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("calibrate: the mock's log %s: line %d: %w", path, line, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("calibrate: the mock's log %s: line %d: %w", path, line+1, err)
	}
	return out, nil
}
