// Package k6sim runs k6 scripts under github.com/grafana/sobek with small Go
// stand-ins for the k6 APIs that llmstream.js and the scripts in scripts/ use, so
// they can be tested in CI where there is no k6.
//
// It is not k6 and shares no code with it: it imitates k6's observable behaviour
// where the module depends on it, and nothing more.
//
//   - ES modules: relative, absolute, file:// and http(s):// imports of .js files
//     (URLs from a loopback IP address only; a relative import resolves from the
//     importing module, file or URL, as in k6, which refuses http://); the built-in
//     modules k6, k6/http, k6/metrics, k6/execution and k6/data (SharedArray:
//     built once per run by the first VU, elements parsed and frozen on read).
//   - import.meta.resolve (k6 v0.54+): the file:// URL an import from that module
//     would load; open() reads such URLs as well as paths (relative ones from the
//     main script's folder, as k6 v2 still does).
//   - Global setTimeout and clearTimeout (k6 v1+), on each VU's event loop,
//     with real delays (fractional milliseconds honoured).
//   - The init context runs once per VU, each VU in its own runtime; metrics may be
//     declared only there, exec.vu throws there, open() works only there.
//   - setup() runs once, its JSON-copied result goes to every iteration and to
//     teardown().
//   - Iterations are counted, not timed: each scenario (or the single default
//     scenario) runs Config.Iterations iterations shared by its VUs (at most
//     Config.VUs), or Config.Iterations per VU for a per-vu-iterations scenario.
//     Durations, stages, rates and start times are read but only used to order
//     scenarios, which run one after another.
//   - Tags of a sample: options.tags, then the scenario tag and scenario tags,
//     then the group tag and tags set through exec.vu.metrics.tags, then the tags
//     of the call (as in k6); metadata from exec.vu.metrics.metadata.
//   - An event loop per VU runs promise jobs and http.asyncRequest completions;
//     an iteration ends when its loop is empty.
//   - Thresholds in options are evaluated at the end (and those with abortOnFail
//     after every iteration); Result.ExitCode is 99 when one failed, like k6.
package k6sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Exit codes of a run, the same numbers k6 uses.
const (
	ExitOK               = 0
	ExitThresholdsFailed = 99
	ExitScriptAborted    = 108
)

// Config says which script to run and how.
type Config struct {
	// Script is the path of the main script (a .js ES module).
	Script string
	// Env is the script's __ENV.
	Env map[string]string
	// VUs caps the number of VUs of every scenario (default 1). A scenario that
	// declares fewer VUs uses its own number.
	VUs int
	// Iterations is the number of iterations of each scenario, shared by its VUs
	// (per VU for per-vu-iterations scenarios); default 1.
	Iterations int
	// Scenarios, when not empty, runs only the named scenarios of options.scenarios.
	Scenarios []string
	// Console receives console.log output and warnings, one line each (optional).
	Console io.Writer
	// Sleep implements k6's sleep(); default time.Sleep (interrupted when ctx ends).
	// Tests pass a shorter or no-op sleep.
	Sleep func(time.Duration)
	// HTTPClient makes the k6/http requests; default a client with keep-alive
	// and no overall timeout (each request has its own, 60 s unless params.timeout).
	HTTPClient *http.Client
	// ModuleClient loads http:// and https:// imports, which k6sim fetches only
	// from a loopback IP address (127.0.0.1, ::1; no DNS lookups); default a
	// client without proxy. A test with httptest.NewTLSServer passes its Client().
	ModuleClient *http.Client
}

// Result is what a run produced.
type Result struct {
	// Options is options as the script exported it.
	Options Options
	// Samples are all metric samples, in the order they were added.
	Samples []Sample
	// Metrics are the metrics the script declared and the built-in ones the
	// simulator emits (checks, http_reqs, http_req_duration, http_req_failed).
	Metrics map[string]MetricInfo
	// Console holds console output and warnings, one entry per line.
	Console []string
	// Errors are the iterations (and setup/teardown) that threw.
	Errors []IterationError
	// Iterations counts iterations that ran to their end without an error.
	Iterations int
	// SetupData is setup()'s result as JSON (null when there is no setup).
	SetupData json.RawMessage
	// Thresholds holds the evaluation of every threshold in options.
	Thresholds []ThresholdResult
	// Aborted is the reason when test.abort() was called or an abortOnFail
	// threshold failed; empty otherwise.
	Aborted string
	// ExitCode is what k6 would exit with: 0, 99 (thresholds failed) or 108
	// (test.abort()).
	ExitCode int
}

// IterationError is an exception thrown by an iteration, setup or teardown.
type IterationError struct {
	Scenario  string
	VU        int
	Iteration int // -1 for setup and teardown
	Err       string
}

func (e IterationError) String() string {
	return fmt.Sprintf("scenario %s, VU %d, iteration %d: %s", e.Scenario, e.VU, e.Iteration, e.Err)
}

// Of returns the samples of one metric.
func (r *Result) Of(metric string) []Sample {
	var out []Sample
	for _, s := range r.Samples {
		if s.Metric == metric {
			out = append(out, s)
		}
	}
	return out
}

// ThresholdsFailed reports whether any threshold failed.
func (r *Result) ThresholdsFailed() bool {
	for _, t := range r.Thresholds {
		if !t.Passed {
			return true
		}
	}
	return false
}

// Err returns an error listing the iteration errors, or nil when there were none.
func (r *Result) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "k6sim: %d iteration error(s):", len(r.Errors))
	for i, e := range r.Errors {
		if i == 5 {
			fmt.Fprintf(&b, "\n  … and %d more", len(r.Errors)-i)
			break
		}
		b.WriteString("\n  " + e.String())
	}
	return errors.New(b.String())
}

// run is the state shared by the VUs of one Run.
type run struct {
	ctx     context.Context
	cfg     Config
	script  string // absolute path of the main script
	metrics *registry
	out     *collector
	client  *http.Client
	// moduleClient fetches http(s) imports (Config.ModuleClient).
	moduleClient *http.Client
	options      Options
	optJSON      json.RawMessage
	start        time.Time
	asts         astCache
	shared       sharedArrays

	mu          sync.Mutex
	console     []string
	errs        []IterationError
	aborted     string
	abortedCode int
	iterations  int64
	stop        atomic.Bool // no new iterations (abort)
}

// Run executes the script: init context for each VU, setup, the scenarios'
// iterations, teardown, thresholds. It returns an error when the script cannot
// be loaded or its init context or options fail; exceptions thrown by iterations
// are in Result.Errors.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	abs, err := scriptPath(cfg.Script)
	if err != nil {
		return nil, err
	}
	cfg = withDefaults(ctx, cfg)
	client, moduleClient, closeIdle := httpClients(cfg)
	defer closeIdle()
	r := &run{ctx: ctx, cfg: cfg, script: abs, metrics: newRegistry(), out: &collector{}, client: client, moduleClient: moduleClient, start: time.Now()}

	// The first VU's init context gives the options (k6 runs one for that too).
	first, err := r.newVU(1)
	if err != nil {
		return nil, err
	}
	if err := r.readOptions(first); err != nil {
		return nil, err
	}
	plan, err := r.plan()
	if err != nil {
		return nil, err
	}
	vus, err := r.moreVUs(first, plan)
	if err != nil {
		return nil, err
	}

	var setupData json.RawMessage
	if fn := first.exported("setup"); fn != nil {
		sv, err := r.newVU(0)
		if err != nil {
			return nil, err
		}
		setupData, err = sv.callLifecycle("setup", nil)
		if err != nil {
			r.addError(IterationError{Scenario: "setup", Iteration: -1, Err: err.Error()})
			return r.result(setupData), nil
		}
	}

	for _, sc := range plan {
		if r.stop.Load() || ctx.Err() != nil {
			break
		}
		if first.exported(sc.exec) == nil {
			return nil, fmt.Errorf("k6sim: scenario %q: the script exports no function %q", sc.name, sc.exec)
		}
		r.runScenario(sc, vus[:sc.vus], setupData)
	}

	if fn := first.exported("teardown"); fn != nil && ctx.Err() == nil {
		tv, err := r.newVU(0)
		if err != nil {
			return nil, err
		}
		if _, err := tv.callLifecycle("teardown", setupData); err != nil {
			r.addError(IterationError{Scenario: "teardown", Iteration: -1, Err: err.Error()})
		}
	}
	return r.result(setupData), nil
}

// scriptPath is the script's absolute path, checked to exist.
func scriptPath(script string) (string, error) {
	if script == "" {
		return "", errors.New("k6sim: Config.Script is empty")
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		return "", fmt.Errorf("k6sim: script %q: %w", script, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("k6sim: script %q: %w", script, err)
	}
	return abs, nil
}

// withDefaults fills the config's zero fields: one VU, one iteration, and a
// sleep that ends early when ctx is done.
func withDefaults(ctx context.Context, cfg Config) Config {
	if cfg.VUs <= 0 {
		cfg.VUs = 1
	}
	if cfg.Iterations <= 0 {
		cfg.Iterations = 1
	}
	if cfg.Sleep == nil {
		cfg.Sleep = func(d time.Duration) {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
			}
		}
	}
	return cfg
}

// httpClients are the script's HTTP client and the module's (loopback, no
// proxy), the config's or new ones; closeIdle closes the new ones' idle
// connections.
func httpClients(cfg Config) (client, moduleClient *http.Client, closeIdle func()) {
	var made []*http.Transport
	client = cfg.HTTPClient
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 1000
		client = &http.Client{Transport: tr}
		made = append(made, tr)
	}
	moduleClient = cfg.ModuleClient
	if moduleClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.Proxy = nil // loopback only: never through a proxy
		moduleClient = &http.Client{Transport: tr, Timeout: time.Minute}
		made = append(made, tr)
	}
	return client, moduleClient, func() {
		for _, tr := range made {
			tr.CloseIdleConnections()
		}
	}
}

// moreVUs adds to the first VU as many as the largest scenario needs.
func (r *run) moreVUs(first *vu, plan []scenarioPlan) ([]*vu, error) {
	nVUs := 1
	for _, s := range plan {
		nVUs = max(nVUs, s.vus)
	}
	vus := []*vu{first}
	for id := 2; id <= nVUs; id++ {
		v, err := r.newVU(id)
		if err != nil {
			return nil, err
		}
		vus = append(vus, v)
	}
	return vus, nil
}

func (r *run) result(setupData json.RawMessage) *Result {
	samples := r.out.all()
	res := &Result{
		Options:   r.options,
		Samples:   samples,
		Metrics:   r.metrics.snapshot(),
		SetupData: setupData,
	}
	res.Thresholds = evaluateThresholds(r.options.Thresholds, r.metrics, samples, time.Since(r.start))
	r.mu.Lock()
	res.Console = append(res.Console, r.console...)
	res.Errors = append(res.Errors, r.errs...)
	res.Aborted = r.aborted
	res.Iterations = int(r.iterations)
	code := r.abortedCode
	r.mu.Unlock()
	if code == 0 && res.ThresholdsFailed() {
		code = ExitThresholdsFailed
	}
	res.ExitCode = code
	return res
}

func (r *run) addError(e IterationError) {
	r.mu.Lock()
	r.errs = append(r.errs, e)
	r.mu.Unlock()
	r.log("ERRO " + e.String())
}

// log records one console line and copies it to Config.Console.
func (r *run) log(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.console = append(r.console, line)
	if r.cfg.Console != nil {
		fmt.Fprintln(r.cfg.Console, line)
	}
}

// abort stops the test: no new iterations start.
func (r *run) abort(reason string, code int) {
	r.mu.Lock()
	if r.aborted == "" {
		r.aborted = reason
		r.abortedCode = code
	}
	r.mu.Unlock()
	r.stop.Store(true)
}

// scenarioPlan is one scenario as the simulator runs it.
type scenarioPlan struct {
	name  string
	exec  string
	vus   int
	iters int
	tags  map[string]string
	env   map[string]string
	start time.Duration
	exe   string
}

func (r *run) plan() ([]scenarioPlan, error) {
	opts := r.options
	if len(opts.Scenarios) == 0 {
		if len(r.cfg.Scenarios) > 0 {
			return nil, fmt.Errorf("k6sim: scenarios %v requested but the script declares no options.scenarios", r.cfg.Scenarios)
		}
		n := 1
		if opts.VUs > 0 {
			n = opts.VUs
		}
		for _, st := range opts.Stages {
			n = max(n, st.Target)
		}
		return []scenarioPlan{{name: "default", exec: "default", vus: min(n, r.cfg.VUs), iters: r.cfg.Iterations, exe: "shared-iterations"}}, nil
	}
	want := map[string]bool{}
	for _, s := range r.cfg.Scenarios {
		if _, ok := opts.Scenarios[s]; !ok {
			return nil, fmt.Errorf("k6sim: scenario %q requested but options.scenarios has no such scenario", s)
		}
		want[s] = true
	}
	var plan []scenarioPlan
	for name, s := range opts.Scenarios {
		if len(want) > 0 && !want[name] {
			continue
		}
		start, err := parseDuration(s.StartTime)
		if err != nil {
			return nil, fmt.Errorf("k6sim: scenario %q: startTime: %w", name, err)
		}
		exec := s.Exec
		if exec == "" {
			exec = "default"
		}
		n := max(1, s.VUs, s.StartVUs, s.PreAllocatedVUs, s.MaxVUs)
		for _, st := range s.Stages {
			n = max(n, st.Target)
		}
		plan = append(plan, scenarioPlan{
			name: name, exec: exec, vus: min(n, r.cfg.VUs), iters: r.cfg.Iterations,
			tags: s.Tags, env: s.Env, start: start, exe: s.Executor,
		})
	}
	sort.Slice(plan, func(i, j int) bool {
		if plan[i].start != plan[j].start {
			return plan[i].start < plan[j].start
		}
		return plan[i].name < plan[j].name
	})
	return plan, nil
}

// runScenario runs sc.iters iterations shared by the given VUs, each VU on its
// own goroutine, and waits for them.
func (r *run) runScenario(sc scenarioPlan, vus []*vu, setupData json.RawMessage) {
	var next atomic.Int64
	var wg sync.WaitGroup
	perVU := sc.exe == "per-vu-iterations"
	for _, v := range vus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.enterScenario(sc)
			for n := 0; ; n++ {
				if r.stop.Load() || r.ctx.Err() != nil {
					return
				}
				if perVU && n >= sc.iters {
					return
				}
				if i := next.Add(1) - 1; !perVU && i >= int64(sc.iters) {
					return
				}
				if err := v.iteration(sc, setupData); err != nil {
					r.addError(IterationError{Scenario: sc.name, VU: v.id, Iteration: v.iterInScenario - 1, Err: err.Error()})
				} else {
					r.mu.Lock()
					r.iterations++
					r.mu.Unlock()
				}
				r.checkAbortThresholds()
			}
		}()
	}
	wg.Wait()
}

func (r *run) checkAbortThresholds() {
	if !hasAbortOnFail(r.options.Thresholds) {
		return
	}
	for _, t := range evaluateThresholds(r.options.Thresholds, r.metrics, r.out.all(), time.Since(r.start)) {
		if t.AbortOnFail && !t.Passed {
			r.abort(fmt.Sprintf("threshold %q on %s failed (abortOnFail)", t.Expr, t.Metric), ExitThresholdsFailed)
			return
		}
	}
}
