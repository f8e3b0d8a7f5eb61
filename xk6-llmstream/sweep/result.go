package sweep

import "github.com/llmstream/xk6-llmstream/internal/result"

// ResultVersion is the version of the JSON result; it changes when a field
// changes meaning or goes away (new fields do not change it). 2: every
// interval is "ci":{"low","high"} (was ci_lo and ci_hi), achieved_rps is
// over the whole level (level_s), a level whose requests do not cover it
// fails (incomplete). 3: a server sweep (--serve) keeps its levels per
// server configuration in configs, its own levels then empty; a result
// without configs reads as version 2 did.
const ResultVersion = 3

// Result is a sweep's outcome, as --json writes it.
type Result struct {
	Version int    `json:"version"`
	Mode    string `json:"mode"` // "rate" (LLM_RATE) or "vus" (LLM_VUS)
	Unit    string `json:"unit"` // of offered: "req/s" or "VUs"
	Script  string `json:"script"`
	// SLO are the limits every level was judged on, failure rate included.
	SLO        []string `json:"slo"`
	Confidence float64  `json:"confidence"`
	// Levels are in the order they ran.
	Levels []Level `json:"levels"`
	// MaxPassing is the highest passing offered level below the lowest level
	// that did not pass (null: none passed).
	MaxPassing *float64 `json:"max_passing"`
	// Saturation is the lowest offered level found over-saturated (null: none).
	Saturation *float64 `json:"saturation"`
	// Stopped says why the sweep ended.
	Stopped string `json:"stopped"`
	// K6ExitCode is the exit code of the level that aborted the sweep (k6
	// failed, not a threshold), else 0.
	K6ExitCode int `json:"k6_exit_code"`
	// CacheBust says whether each level had its own prefix-cache salt
	// (false: --no-cache-bust); CacheWarning is CacheWarning's ("" none).
	CacheBust    bool   `json:"cache_bust"`
	CacheWarning string `json:"cache_warning,omitempty"`
	// Configs are a server sweep's configurations in the order run, each
	// with its own levels (absent without --serve).
	Configs []ConfigResult `json:"configs,omitempty"`
}

// Configuration statuses: every level the plan chose ran; the server would
// not start or answer, died, or k6 failed; a signal ended it; it never
// started (a signal came before).
const (
	ConfigDone        = "done"
	ConfigFailed      = "failed"
	ConfigInterrupted = "interrupted"
	ConfigNotRun      = "not run"
)

// ConfigResult is one server configuration of a server sweep.
type ConfigResult struct {
	Index  int     `json:"index"` // 1-based, in the order run
	Name   string  `json:"name"`  // slots=2 OLLAMA_NUM_PARALLEL=4
	Params []Param `json:"params"`
	// Command is the server's command with the configuration's flags.
	Command string `json:"command"`
	Status  string `json:"status"`
	// Reason says why the configuration failed or was cut short ("" when
	// done).
	Reason string `json:"reason"`
	// ReadyS is the time from the server's start to its first answer
	// (null: it never answered).
	ReadyS    *float64 `json:"ready_s"`
	ServerLog string   `json:"server_log"`
	// Levels, MaxPassing, Saturation, Stopped and K6ExitCode are the
	// configuration's, as a single sweep's.
	Levels     []Level  `json:"levels"`
	MaxPassing *float64 `json:"max_passing"`
	Saturation *float64 `json:"saturation"`
	Stopped    string   `json:"stopped"`
	K6ExitCode int      `json:"k6_exit_code"`
}

// Sub is the configuration as a single sweep's result under res's header,
// for its tables.
func (c *ConfigResult) Sub(res *Result) *Result {
	return &Result{Version: res.Version, Mode: res.Mode, Unit: res.Unit, Script: res.Script, SLO: res.SLO,
		Confidence: res.Confidence, Levels: c.Levels, MaxPassing: c.MaxPassing, Saturation: c.Saturation,
		Stopped: c.Stopped, K6ExitCode: c.K6ExitCode}
}

// Level is one level's measurement and verdict.
type Level struct {
	Index   int     `json:"index"` // 1-based, in the order run
	Offered float64 `json:"offered"`
	File    string  `json:"file"`
	// K6ExitCode is k6's exit code for the level (99: the script's own
	// thresholds failed; data, not an abort).
	K6ExitCode int `json:"k6_exit_code"`
	// LevelS is the level's duration (--level-duration; without one, the
	// span of its output, which includes the drain of requests in flight):
	// AchievedRPS and a Counter's rate in the SLO are per second of it.
	LevelS float64 `json:"level_s"`
	// WindowS is analyze's measured window: from the first request's end to
	// the last's. RPS, OutputTPS, GoodputRPS and Throughput are over it and
	// count the requests that ended after the first.
	WindowS  float64 `json:"window_s"`
	Requests int64   `json:"requests"`
	Failed   int64   `json:"failed"`
	// FailureRate is Failed/Requests.
	FailureRate *float64 `json:"failure_rate"`
	// AchievedRPS is the successful requests per second over the whole
	// level: the lower of the rate over WindowS and the successful requests
	// per second of LevelS, so that neither a backlog drained after the
	// level nor requests that stopped early make a full level's rate. RPS counts every request that
	// ended (failed ones too); OutputTPS the successful ones'
	// llm_output_tokens; GoodputRPS
	// those that met every per-request SLO limit (null when the requests
	// carry no llm_request_id to join their samples).
	RPS         *float64 `json:"rps"`
	AchievedRPS *float64 `json:"achieved_rps"`
	OutputTPS   *float64 `json:"output_tps"`
	GoodputRPS  *float64 `json:"goodput_rps"`
	// TotalTPS is the successful requests' input and output tokens per
	// second; Throughput every throughput figure with its confidence
	// interval and the per-request rates, as analyze summary reports them
	// (result.Throughput).
	TotalTPS   *float64           `json:"total_tps"`
	Throughput *result.Throughput `json:"throughput"`
	Dropped    int64              `json:"dropped_iterations"`
	// Iterations is k6's count of the level's iterations (null: the output
	// has none), IterationErrors those that made no request (an iteration
	// that threw); HTTPFailed counts k6's http_req_failed.
	Iterations      *int64 `json:"iterations"`
	IterationErrors int64  `json:"iteration_errors"`
	HTTPFailed      int64  `json:"http_req_failed"`
	// Incomplete says why the level's requests do not cover it (empty: they
	// do); such a level fails.
	Incomplete []string       `json:"incomplete"`
	Latency    []Dist         `json:"latency"`
	Limits     []LimitVerdict `json:"limits"`
	// Saturation says why the level counts as over-saturated (empty: it
	// does not).
	Saturation []string `json:"saturation"`
	// LoadGenerator is the load-generator rule's verdict on the level.
	LoadGenerator LoadGen `json:"load_generator"`
	// Server is what the server's own metrics said during the level (null
	// without --scrape).
	Server  *ServerSignals `json:"server"`
	Verdict result.Verdict `json:"verdict"`
	Pass    bool           `json:"pass"`
	// ElapsedS is the level's wall time (k6 and the helper); AnalysisS the
	// part spent reading and judging its output.
	ElapsedS  float64 `json:"elapsed_s"`
	AnalysisS float64 `json:"analysis_s"`
}

// Dist is a latency metric's percentiles on one level.
type Dist struct {
	Metric      string     `json:"metric"`
	Count       int        `json:"count"`
	Percentiles []Quantile `json:"percentiles"`
}

// Quantile is one percentile (k6's p(N)) with its confidence interval.
type Quantile struct {
	Name  string   `json:"name"` // p(99)
	Value *float64 `json:"value"`
	CI    Interval `json:"ci"`
}

// Interval bounds a figure at the sweep's confidence, spelt as analyze's
// JSON spells a percentile's interval: "ci":{"low":…,"high":…}. A bound is
// null when open on that side, or when the figure has no interval.
type Interval struct {
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
}

// quantile returns the named percentile of a Dist (nil if absent).
func (d Dist) quantile(name string) *Quantile {
	for i := range d.Percentiles {
		if d.Percentiles[i].Name == name {
			return &d.Percentiles[i]
		}
	}
	return nil
}

// dist returns a level's Dist of a metric (nil if absent).
func (l *Level) dist(metric string) *Dist {
	for i := range l.Latency {
		if l.Latency[i].Metric == metric {
			return &l.Latency[i]
		}
	}
	return nil
}
