package result

// Schema identifiers, written in the "schema" field of every JSON document. A
// change that removes or renames a field gets a new version; new fields may be
// added within a version.
const (
	SummarySchema = "xk6-llmstream/analyze-summary/v1"
	CheckSchema   = "xk6-llmstream/analyze-check/v1"
)

// Input describes one input file.
type Input struct {
	Label  string `json:"label"`
	Path   string `json:"path"`
	Lines  int64  `json:"lines"`
	Points int64  `json:"points"` // Point lines of every metric
	Kept   int64  `json:"kept"`   // points of the selected metrics
	// Start is the time of the first sample (RFC 3339), the origin of --from/--to.
	Start        string  `json:"start,omitempty"`
	Skipped      int64   `json:"skipped_lines"`
	SkippedLines []int64 `json:"skipped_line_numbers,omitempty"`
	// Damage says how an input ended early (k6 killed): read up to the damage.
	Damage string `json:"damage,omitempty"`
}

// Selection is what was asked for.
type Selection struct {
	Metrics []string `json:"metrics"` // asked for; empty: every llm_* metric
	Where   []string `json:"where"`   // key=value, all must hold
	By      []string `json:"by"`      // grouping tags ("file": by input)
	From    string   `json:"from,omitempty"`
	To      string   `json:"to,omitempty"`
}

// Summary is the result of `analyze summary`.
type Summary struct {
	Schema     string    `json:"schema"`
	Inputs     []Input   `json:"inputs"`
	Selection  Selection `json:"selection"`
	Confidence float64   `json:"confidence"`
	Metrics    []Metric  `json:"metrics"`
	// Throughput is each group's request and token throughput and goodput
	// (absent when the requests were not joined).
	Throughput []Throughput `json:"throughput,omitempty"`
	// Health is the client path's health per group (llm_client_lag,
	// llm_itl_zero_gaps), when the inputs have those metrics.
	Health []Health `json:"client_health,omitempty"`
	// CacheHits is the cache-hit share of input tokens per group, when the
	// inputs have llm_cached_input_tokens and llm_input_tokens.
	CacheHits []CacheHit `json:"cache_hits,omitempty"`
	// SendLag is the send lag of open-loop load per group (llm_arrival_lateness),
	// with the degraded-replay verdict.
	SendLag []SendLag `json:"send_lag,omitempty"`
	// Cost is the requests' cost per request and in all, per group, when
	// the inputs have llm_cost (Clients with prices).
	Cost *Cost `json:"cost,omitempty"`
	// Warnings are the notes of every group of a selected metric (a metric
	// read only beside the selection keeps its notes under its table), the
	// failure-rate warning and the load-generator warning, in one list.
	Warnings []string `json:"warnings"`
	// Alerts are the warnings that bear on every figure of the run, the ones
	// analyze writes on stderr and the report shows at its top: a failure
	// rate above the bound, and the load generator limiting the results when
	// llm_client_lag is selected (the default) and its rule has a verdict.
	// Added within v1.
	Alerts []string `json:"alerts"`
}

// Metric is one metric's groups.
type Metric struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`     // trend, rate, counter, gauge
	Contains string  `json:"contains"` // time, data, default
	Unit     string  `json:"unit"`     // ms, B or ""
	Groups   []Group `json:"groups"`
}

// Group is the statistics of one group of samples. Which fields are present
// depends on the metric type: min/mean/max/percentiles for a Trend, rate and
// non_zero (with error_kinds) for a Rate, sum and per_second for a Counter,
// value/min/max for a Gauge.
type Group struct {
	Label  string            `json:"label"`  // "model=a,scenario=ramp", or "all"
	Labels map[string]string `json:"labels"` // the same, as an object
	Count  int64             `json:"count"`  // samples

	Min         *float64     `json:"min,omitempty"`
	Mean        *float64     `json:"mean,omitempty"`
	Max         *float64     `json:"max,omitempty"`
	Percentiles []Percentile `json:"percentiles,omitempty"`

	Rate       *float64         `json:"rate,omitempty"`
	NonZero    *int64           `json:"non_zero,omitempty"`
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`

	Sum       *float64 `json:"sum,omitempty"`
	PerSecond *float64 `json:"per_second,omitempty"`

	Value *float64 `json:"value,omitempty"`

	// Tail is a Trend group's tail diagnosis; absent for other types.
	Tail *Tail `json:"tail,omitempty"`

	Notes []string `json:"notes,omitempty"`
}

// Tail is the tail diagnosis of a Trend group (shape): how long the
// tail is, what shape the ECDF has above P90, and the same in a sentence.
type Tail struct {
	// Shape is "tight", "gradual" (a long tail rising gradually), "cliff",
	// "two modes", "quantised" (too few distinct values to judge) or
	// "unknown" (too few samples: under 200).
	Shape string `json:"shape"`
	// LongTail is true when a judged ratio is above its threshold.
	LongTail bool `json:"long_tail"`
	// P99P50 is P99/P50 and P999P99 is P99.9/P99; null when not judged
	// (under 200 samples for P99, 2,000 for P99.9) or undefined (a
	// denominator ≤ 0).
	P99P50  *float64 `json:"p99_p50"`
	P999P99 *float64 `json:"p999_p99"`
	// The thresholds the ratios were judged against.
	LongTailRatio float64 `json:"long_tail_ratio"`
	ExtremeRatio  float64 `json:"extreme_ratio"`
	// Cliff is where values pile up, when Shape is "cliff".
	Cliff *Cliff `json:"cliff,omitempty"`
	// Gap is the valley between the modes, when Shape is "two modes".
	Gap *Gap `json:"gap,omitempty"`
	// Sentence is the diagnosis in words, starting with the metric and group.
	Sentence string `json:"sentence"`
}

// Cliff is a pile of values at a limit: Share of the samples lie within
// [Low, High] (their median is At), Above of them above it.
type Cliff struct {
	At    float64 `json:"at"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Share float64 `json:"share"`
	Above float64 `json:"above"`
}

// Gap is the valley between two modes: Below of the samples lie below Low,
// Above of them above High.
type Gap struct {
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Below float64 `json:"below"`
	Above float64 `json:"above"`
}

// Percentile is one percentile of a Trend group.
type Percentile struct {
	Name        string  `json:"name"`         // p(99.9), as k6 names it
	P           float64 `json:"p"`            // 99.9
	Value       float64 `json:"value"`        // as k6 computes it
	NearestRank float64 `json:"nearest_rank"` // the value of rank ⌈p·n⌉
	Rank        int     `json:"rank"`
	CI          CI      `json:"ci"`
	// MinSamples is the count needed for 2 observations above the percentile;
	// TooFew is count < MinSamples.
	MinSamples int  `json:"min_samples"`
	TooFew     bool `json:"too_few"`
	// RelWidth is (hi − lo)/value, null when the interval is unbounded.
	RelWidth *float64 `json:"rel_width"`
	Wide     bool     `json:"wide"`
}

// CI is a distribution-free confidence interval from two order statistics.
// Low and High are null where the sample is too small to bound that side; the
// ranks are then 0 and count+1.
type CI struct {
	Low      *float64 `json:"low"`
	High     *float64 `json:"high"`
	LowRank  int      `json:"low_rank"`
	HighRank int      `json:"high_rank"`
	Coverage float64  `json:"coverage"` // exact, ≥ the confidence asked for
}

// CheckReport is the result of `analyze check`.
type CheckReport struct {
	Schema    string        `json:"schema"`
	Inputs    []Input       `json:"inputs"`
	Selection Selection     `json:"selection"`
	Checks    []CheckResult `json:"checks"`
	Passed    int           `json:"passed"`
	Failed    int           `json:"failed"`
	// Inconclusive counts the checks that could not be decided at the
	// confidence level; they fail the gate unless AllowInconclusive.
	Inconclusive      int     `json:"inconclusive"`
	Confidence        float64 `json:"confidence"`
	AllowInconclusive bool    `json:"allow_inconclusive"`
	OK                bool    `json:"ok"` // no check failed, and none inconclusive unless allowed
}

// CheckResult is one check.
type CheckResult struct {
	Check      string            `json:"check"`      // as written: llm_ttft{model:a}: p(95)<800
	Metric     string            `json:"metric"`     // llm_ttft
	Tags       map[string]string `json:"tags"`       // the submetric's tags, {} for none
	Expression string            `json:"expression"` // p(95)<800
	Aggregate  string            `json:"aggregate"`  // p(95)
	Operator   string            `json:"operator"`   // <
	Limit      float64           `json:"limit"`      // 800
	Unit       string            `json:"unit"`       // ms, B or ""
	Observed   *float64          `json:"observed"`   // null when there is no data
	Count      int64             `json:"count"`      // samples behind the observed value
	// Verdict is pass, fail or inconclusive (Judge's rule, and fail
	// whenever k6's value fails); Passed is Verdict == pass.
	Verdict Verdict `json:"verdict"`
	Passed  bool    `json:"passed"`
	// K6Passed is the verdict k6 gives on the value alone (false without data).
	K6Passed bool `json:"k6_passed"`
	// CILow and CIHigh bound the aggregate at the confidence level (null:
	// open on that side, or no interval for this aggregate); Interval names it.
	CILow    *float64 `json:"ci_low"`
	CIHigh   *float64 `json:"ci_high"`
	Interval string   `json:"interval,omitempty"`
	// NeededSamples is the sample size that would decide an inconclusive
	// check if the distribution stays as observed (absent: unknown or none).
	NeededSamples int64  `json:"needed_samples,omitempty"`
	Reason        string `json:"reason,omitempty"` // why it did not pass, or how it was judged
}
