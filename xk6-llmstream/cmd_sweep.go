package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/sweep"
)

const sweepUsage = `usage: xk6-llmstream sweep [flags] script.js [k6 run flags...]

Runs a k6 script at a series of load levels — an arrival rate (--rate, the
default: LLM_RATE, requests per second) or a concurrency (--vus: LLM_VUS) —
each level one "k6 run" through the runner (the helper, and the mock LLM when
LLM_BASE_URL is not set, started for the level), with LLM_DURATION set to
--level-duration, its output in DIR/level-<n>.json.gz and --tag level=<n>.
Each level is judged on the SLO with confidence: it passes only when every
limit holds with the 95% interval on the right side of the limit (an interval
that straddles it is "inconclusive" and does not pass), and it is not
over-saturated (achieved rate below the offered one, k6 dropping iterations,
TTFT rising within the level, or with --vus no more throughput from more VUs).

Prints a table per level and the answer on stdout, progress on stderr, and
writes the JSON result to --json (default DIR/sweep.json); "analyze plot
DIR/sweep.json -o DIR" draws the capacity figures from it. Exits 0 when a
level passed, 99 when none did, 2 for bad usage, and with k6's exit code when
k6 failed at a level (a threshold failure, 99, is data, not a failure); a
signal is forwarded to k6 and ends the sweep after that level.

Examples:
  xk6-llmstream sweep --levels 2,4,8,16 --slo 'llm_ttft: p(99)<2000' scripts/capacity.js
  xk6-llmstream sweep --search --min 1 --max 64 --resolution 5% --budget 10 \
      --slo 'llm_ttft: p(90)<500' --slo 'llm_tpot: p(90)<50' scripts/capacity.js
  LLM_BASE_URL=http://127.0.0.1:8000/v1 LLM_MODEL=my-model \
      xk6-llmstream sweep --vus --levels 1,2,4,8,16 --level-duration 1m scripts/capacity.js
  LLM_BASE_URL=http://127.0.0.1:11434/v1 LLM_MODEL=tiny \
      xk6-llmstream sweep --serve 'ollama serve' --serve-params OLLAMA_NUM_PARALLEL=1,4 \
      --levels 2,4,8 scripts/capacity.js

A server sweep (--serve CMD --serve-params GRID, docs/server-sweeps.md) starts
the server once per configuration of the grid (the cartesian product of each
parameter's values: an upper-case NAME=v1,v2 is an environment variable, a
lower-case one a flag, slots=2,4: --slots 2), waits until --serve-ready
answers, runs the levels, kills the server's process group, and keeps every
configuration's levels in the one sweep.json.

Flags (before the script; the rest goes to "k6 run"):
`

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return fmt.Sprint([]string(*r)) }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }

// sweepFlags are the sweep command's flags.
type sweepFlags struct {
	vus, rate, search  bool
	levels, resolution string
	min, max, maxFail  float64
	confidence         float64
	budget             int
	slo, allow         repeated
	duration           time.Duration
	outDir, jsonOut    string
	mock, verbose      bool
	noCacheBust        bool
	mockProfile        string
	scrape, caFile     string
	gpuMetrics         string
	scrapeEvery        time.Duration
	serve, serveReady  string
	serveParams        repeated
	readyTimeout       time.Duration
	stopTimeout        time.Duration
	script             string
	k6Args             []string
}

func parseSweepArgs(args []string, stderr io.Writer) (*sweepFlags, error) {
	f := &sweepFlags{}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, sweepUsage); fs.PrintDefaults() }
	fs.BoolVar(&f.rate, "rate", false, "levels are arrival rates in req/s, handed over as LLM_RATE (the default)")
	fs.BoolVar(&f.vus, "vus", false, "levels are concurrent VUs, handed over as LLM_VUS")
	fs.StringVar(&f.levels, "levels", "", "run these increasing `levels`, comma-separated (e.g. 2,4,8)")
	fs.BoolVar(&f.search, "search", false, "search the highest passing level: double from --min until a level fails, then bisect")
	fs.Float64Var(&f.min, "min", 1, "the search's first level")
	fs.Float64Var(&f.max, "max", 64, "the search's highest level")
	fs.StringVar(&f.resolution, "resolution", "5%", "stop bisecting when the gap is this `share` of the passing level")
	fs.IntVar(&f.budget, "budget", 12, "run at most this many levels in a search")
	fs.Var(&f.slo, "slo", "an SLO limit `'METRIC: EXPR'` in k6's threshold syntax, e.g. 'llm_ttft: p(99)<2000', or a per-token deadline 'deadline.ttft=1s,deadline.perToken=50ms' that goodput judges on each level's records (docs/deadlines.md) (repeatable)")
	fs.Float64Var(&f.maxFail, "max-failure-rate", sweep.DefaultMaxFail, "adds the limit llm_requests_failed: rate<`R` (1: none)")
	fs.Float64Var(&f.confidence, "confidence", 0.95, "confidence `level` of the intervals the limits are judged on")
	fs.DurationVar(&f.duration, "level-duration", 30*time.Second, "each level's duration, handed over as LLM_DURATION (0: the script's)")
	fs.DurationVar(&f.duration, "duration", 30*time.Second, "the same as --level-duration")
	fs.StringVar(&f.outDir, "out-dir", "", "`directory` for each level's k6 output and log (default sweep-<time>)")
	fs.StringVar(&f.jsonOut, "json", "", "write the JSON result to this `file` (- for stdout; default DIR/sweep.json)")
	fs.BoolVar(&f.noCacheBust, "no-cache-bust", false, "send every level the same prompts: no fresh prefix-cache salt per level (LLM_CACHE_SALT, LLM_CACHE_BUST=1; docs/traffic.md), so later levels may be served from the cache earlier ones built (the sweep warns)")
	fs.BoolVar(&f.mock, "mock", false, "start the mock LLM for each level even if LLM_BASE_URL is set")
	fs.StringVar(&f.mockProfile, "mock-profile", "", "start the mock with this profile `file` (docs/mock-flags.md)")
	fs.Var(&f.allow, "allow", "more upstream `hosts` for the helper, comma-separated (repeatable)")
	fs.BoolVar(&f.verbose, "verbose", false, "log every stream the helper runs (into each level's log)")
	fs.StringVar(&f.scrape, "scrape", "", "scrape this Prometheus `URL` (vLLM, SGLang, TGI, llama.cpp /metrics; 'mock': the level's mock) during each level: requests running and waiting, KV-cache usage")
	fs.DurationVar(&f.scrapeEvery, "scrape-interval", sweep.DefaultScrapeInterval, "time between two scrapes")
	fs.StringVar(&f.gpuMetrics, "gpu-metrics", "", "scrape this NVIDIA DCGM exporter /metrics `URL` ('mock': the level's mock's DCGM-like page) at the same times: GPU utilization, memory, power and SM clock per level, and the energy per output token")
	fs.StringVar(&f.caFile, "ca-file", "", "trust the CA certificates (PEM) in `file` for https upstreams and https --scrape, besides the system's")
	fs.StringVar(&f.serve, "serve", "", "start the server with this shell `command` for each configuration of --serve-params (its own process group, killed after its levels); LLM_BASE_URL must name it on 127.0.0.1")
	fs.Var(&f.serveParams, "serve-params", "server parameters `NAME=v1,v2`: upper case an environment variable, lower case a flag (slots=2,4: --slots 2); several make a cartesian product (repeatable)")
	fs.StringVar(&f.serveReady, "serve-ready", "", "poll this 127.0.0.1 `URL` until it answers 2xx before the levels (default LLM_BASE_URL/models)")
	fs.DurationVar(&f.readyTimeout, "serve-timeout", sweep.DefaultReadyTimeout, "how long the server may take to answer --serve-ready")
	fs.DurationVar(&f.stopTimeout, "serve-stop-timeout", sweep.DefaultStopTimeout, "how long the server has to end after SIGTERM before its process group is killed")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usagef("%v", err)
	}
	if fs.NArg() == 0 {
		return nil, usagef("missing the k6 script: xk6-llmstream sweep [flags] script.js [k6 run flags...]")
	}
	f.script, f.k6Args = fs.Arg(0), fs.Args()[1:]
	return f, nil
}

// plan builds the sweep's Spec and Plan from the flags.
func (f *sweepFlags) plan() (sweep.Spec, sweep.Plan, error) {
	mode := sweep.Rate
	switch {
	case f.vus && f.rate:
		return sweep.Spec{}, nil, usagef("--rate and --vus exclude each other")
	case f.vus:
		mode = sweep.VUs
	}
	deadline, exprs, err := metrics.ParseDeadline(f.slo)
	if err != nil {
		return sweep.Spec{}, nil, usagef("%v", err)
	}
	checks, err := sweep.ParseSLO(exprs, f.maxFail)
	if err != nil {
		return sweep.Spec{}, nil, usagef("%v", err)
	}
	spec := sweep.DefaultSpec(mode, checks)
	spec.Deadline = deadline
	if !(f.confidence > 0 && f.confidence < 1) {
		return spec, nil, usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", f.confidence)
	}
	spec.Confidence = f.confidence
	if _, err := helper.ParseAllowList(f.allow...); err != nil {
		return spec, nil, usagef("--allow: %v", err)
	}
	switch {
	case f.search == (f.levels != ""):
		return spec, nil, usagef("give either --levels LIST or --search")
	case !f.search:
		levels, err := sweep.ParseLevels(f.levels, mode)
		if err != nil {
			return spec, nil, usagef("--levels: %v", err)
		}
		return spec, sweep.Fixed{Levels: levels}, nil
	}
	res, err := sweep.ParseResolution(f.resolution)
	if err != nil {
		return spec, nil, usagef("--resolution: %v", err)
	}
	s := sweep.Search{Mode: mode, Min: f.min, Max: f.max, Resolution: res, Budget: f.budget}
	if err := s.Validate(); err != nil {
		return spec, nil, usagef("%v", err)
	}
	return spec, s, nil
}

// scrapeConfig is --scrape's configuration — its URL checked against the
// allow-list, https trusting --ca-file's CAs — and the helper's options for
// --ca-file.
func (f *sweepFlags) scrapeConfig() (sweep.Scrape, []helper.Option, error) {
	allow, err := helper.ParseAllowList(f.allow...)
	if err != nil {
		return sweep.Scrape{}, nil, usagef("--allow: %v", err)
	}
	sc := sweep.Scrape{URL: f.scrape, GPU: f.gpuMetrics, Interval: f.scrapeEvery, Allow: allow.Allows}
	var opts []helper.Option
	if f.caFile != "" {
		pool, err := helper.LoadCAFile(f.caFile)
		if err != nil {
			return sc, nil, usagef("--ca-file: %v", err)
		}
		sc.RootCAs, opts = pool, []helper.Option{helper.WithRootCAs(pool)}
	}
	if f.scrapeEvery <= 0 {
		return sc, nil, usagef("--scrape-interval must be positive (got %v)", f.scrapeEvery)
	}
	if err := sc.Check("--scrape"); err != nil {
		return sc, nil, usageError{Err: err}
	}
	return sc, opts, nil
}

// runSweep is the `sweep` command.
func runSweep(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	return sweepK6(context.Background(), args, stdout, stderr, signals, nil)
}

// sweepK6 is runSweep with its signals and environment (nil: the process's) given.
func sweepK6(ctx context.Context, args []string, stdout, stderr io.Writer, signals <-chan os.Signal, env []string) error {
	f, err := parseSweepArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	spec, plan, err := f.plan()
	if err != nil {
		return err
	}
	scrape, helperOpts, err := f.scrapeConfig()
	if err != nil {
		return err
	}
	serve, err := f.serveConfig(env)
	if err != nil {
		return err
	}
	if f.outDir == "" {
		f.outDir = "sweep-" + time.Now().Format("20060102-150405")
	}
	if err := os.MkdirAll(f.outDir, 0o755); err != nil {
		return fmt.Errorf("--out-dir: %w", err)
	}
	dur := ""
	if f.duration > 0 {
		dur = f.duration.String()
	}
	mockCmd, err := mockCommand(env)
	if err != nil {
		return err
	}
	cfg := sweep.Config{
		Spec: spec, Plan: plan, OutDir: f.outDir, Script: f.script, LevelDuration: f.duration,
		Progress: stderr, Signals: signals, Scrape: scrape, NoCacheBust: f.noCacheBust,
		Exec: sweep.K6{Mode: spec.Mode, Script: f.script, K6Args: f.k6Args, Duration: dur, Env: env,
			Mock: f.mock, MockProfile: f.mockProfile, MockCmd: mockCmd, Allow: f.allow, Verbose: f.verbose, HelperOptions: helperOpts},
	}
	var res *sweep.Result
	var runErr error
	if serve != nil {
		res, runErr = sweep.ExecuteServe(ctx, cfg, *serve)
	} else {
		res, runErr = sweep.Execute(ctx, cfg)
	}
	if res == nil {
		return runErr
	}
	if err := writeSweep(f, res, stdout, stderr); err != nil {
		return errors.Join(runErr, err)
	}
	var abort *sweep.AbortError
	switch {
	case errors.As(runErr, &abort):
		fmt.Fprintf(stderr, "xk6-llmstream sweep: %v\n", abort)
		return exitCodeError{abort.Code}
	case runErr != nil:
		return runErr
	case res.Configs != nil:
		return configsExit(res)
	case res.MaxPassing == nil:
		return exitCodeError{sweep.ExitThresholdsFailed}
	}
	return nil
}

// configsExit is a server sweep's exit: 1 when a configuration failed (the
// comparison lacks it), else 99 when no configuration had a passing level.
func configsExit(res *sweep.Result) error {
	passed := false
	for _, c := range res.Configs {
		if c.Status != sweep.ConfigDone {
			return exitCodeError{1}
		}
		passed = passed || c.MaxPassing != nil
	}
	if !passed {
		return exitCodeError{sweep.ExitThresholdsFailed}
	}
	return nil
}

// serveConfig is --serve's server sweep (nil without --serve): the grid,
// and the URL polled for readiness, which like LLM_BASE_URL must be on
// 127.0.0.1.
func (f *sweepFlags) serveConfig(env []string) (*sweep.Serve, error) {
	if f.serve == "" {
		if len(f.serveParams) > 0 || f.serveReady != "" {
			return nil, usagef("--serve-params and --serve-ready need --serve CMD")
		}
		return nil, nil
	}
	if f.mock {
		return nil, usagef("--serve and --mock exclude each other: --serve starts the server")
	}
	grid, err := sweep.ParseGrid(f.serveParams)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if env == nil {
		env = os.Environ()
	}
	base := runner.LookupEnv(env, runner.BaseURLEnv)
	if base == "" {
		return nil, usagef("--serve: set LLM_BASE_URL to the server's URL (http://127.0.0.1:PORT/v1)")
	}
	if err := sweep.CheckLoopbackURL("LLM_BASE_URL", base); err != nil {
		return nil, usagef("--serve: %v", err)
	}
	ready := f.serveReady
	if ready == "" {
		ready = strings.TrimRight(base, "/") + "/models"
	}
	if err := sweep.CheckLoopbackURL("--serve-ready", ready); err != nil {
		return nil, usagef("%v", err)
	}
	if f.readyTimeout <= 0 || f.stopTimeout <= 0 {
		return nil, usagef("--serve-timeout and --serve-stop-timeout must be positive")
	}
	return &sweep.Serve{Command: f.serve, Grid: grid, Env: env, ReadyURL: ready,
		ReadyTimeout: f.readyTimeout, StopTimeout: f.stopTimeout}, nil
}

// writeSweep writes the table to stdout and the JSON result (to stdout for
// --json -, and the table then to stderr), and the command that draws the
// capacity figures from it: the sweep draws none, so that this binary links
// no plotting.
func writeSweep(f *sweepFlags, res *sweep.Result, stdout, stderr io.Writer) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	path := f.jsonOut
	if path == "" {
		path = filepath.Join(f.outDir, "sweep.json")
	}
	tables := sweep.WriteTable
	if res.Configs != nil {
		tables = sweep.WriteConfigTables
	}
	if path == "-" {
		// The JSON takes stdout; the table goes with the progress.
		if err := tables(stderr, res); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "figures: save this JSON as FILE and run: analyze plot FILE -o %s\n", f.outDir)
		_, err = stdout.Write(b)
		return err
	}
	if err := tables(stdout, res); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("--json: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "result: %s (version %s)\nfigures: analyze plot %s -o %s\n", path, strconv.Itoa(res.Version), path, f.outDir)
	return err
}
