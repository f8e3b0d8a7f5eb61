package result

import "github.com/llmstream/xk6-llmstream/internal/compare"

// CompareSchema identifies the JSON output of compare.
const CompareSchema = "xk6-llmstream/analyze-compare/v1"

// Comparison is the result of `analyze compare`, and its JSON schema
// (documented in docs/analyze-compare.md).
type Comparison struct {
	Schema string `json:"schema"`
	// Baseline and Candidate describe each side's inputs as one (paths
	// joined, counts summed); BaselineFiles and CandidateFiles list them.
	Baseline       Input           `json:"baseline"`
	Candidate      Input           `json:"candidate"`
	BaselineFiles  []Input         `json:"baseline_files"`
	CandidateFiles []Input         `json:"candidate_files"`
	Selection      Selection       `json:"selection"`
	Confidence     float64         `json:"confidence"`
	Resamples      int             `json:"resamples"`
	Seed           uint64          `json:"seed"`
	Metrics        []CompareMetric `json:"metrics"` // the Trends
	Rates          []CompareRate   `json:"rates"`
	Limits         []LimitResult   `json:"limits"`
	Warnings       []string        `json:"warnings"`
	// Inconclusive counts the limits that could not be decided; they fail
	// the gate unless AllowInconclusive.
	Inconclusive      int  `json:"inconclusive"`
	AllowInconclusive bool `json:"allow_inconclusive"`
	OK                bool `json:"ok"` // no limit broken, and none inconclusive unless allowed
}

type CompareMetric struct {
	Name   string         `json:"name"`
	Unit   string         `json:"unit"`
	Groups []CompareGroup `json:"groups"`
}

type CompareGroup struct {
	Label     string            `json:"label"`
	Labels    map[string]string `json:"labels"`
	Baseline  int               `json:"baseline_count"`
	Candidate int               `json:"candidate_count"`
	KSD       *float64          `json:"ks_d"`
	KSP       *float64          `json:"ks_p"`
	Verdict   string            `json:"verdict"`
	Changes   []Change          `json:"changes"`
}

type Change struct {
	Stat      string   `json:"stat"`
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	Delta     *float64 `json:"delta"`
	DeltaLow  *float64 `json:"delta_low"`
	DeltaHigh *float64 `json:"delta_high"`
	Rel       *float64 `json:"rel"` // (candidate − baseline)/baseline
	RelLow    *float64 `json:"rel_low"`
	RelHigh   *float64 `json:"rel_high"`
	Verdict   string   `json:"verdict"`
}

// CompareRate is one Rate metric's comparison.
type CompareRate struct {
	Name string `json:"name"`
	// LowerIsBetter: a failure rate (a name with "fail" or "error"); else
	// the rate counts successes and higher is better.
	LowerIsBetter bool        `json:"lower_is_better"`
	Groups        []RateGroup `json:"groups"`
}

type RateGroup struct {
	Label     string            `json:"label"`
	Labels    map[string]string `json:"labels"`
	Baseline  RateSide          `json:"baseline"`
	Candidate RateSide          `json:"candidate"`
	// Delta is the candidate's rate − the baseline's, a difference of
	// shares (0.01 is one percentage point); DeltaLow and DeltaHigh its
	// Newcombe interval at the confidence level.
	Delta     float64 `json:"delta"`
	DeltaLow  float64 `json:"delta_low"`
	DeltaHigh float64 `json:"delta_high"`
	Verdict   string  `json:"verdict"`
}

// RateSide is a Rate's samples in one run.
type RateSide struct {
	Count   int64   `json:"count"`
	NonZero int64   `json:"non_zero"`
	Rate    float64 `json:"rate"`
}

type LimitResult struct {
	Limit  string `json:"limit"` // as ParseLimit reads it
	Metric string `json:"metric"`
	Group  string `json:"group"`
	Stat   string `json:"stat"`
	// Change is relative or absolute, as the limit is (for a rate: a
	// difference of shares); Low and High bound it.
	Change   *float64 `json:"change"`
	Low      *float64 `json:"low"`
	High     *float64 `json:"high"`
	Broken   bool     `json:"broken"`             // worse than the limit with confidence
	Untested string   `json:"untested,omitempty"` // why it could not be tested
	// Verdict is fail (broken), pass (within the limit with confidence) or
	// inconclusive (untested, or an interval that straddles the limit),
	// which fails the gate unless allowed.
	Verdict Verdict `json:"verdict"`
	// NeededSamples is about how many samples per run would decide an
	// inconclusive limit (absent: unknown).
	NeededSamples int64  `json:"needed_samples,omitempty"`
	Reason        string `json:"reason,omitempty"`
	// Rule is the limit itself (not in the JSON: Limit is its text).
	Rule compare.RegressionLimit `json:"-"`
}

// Broken is the number of limits broken.
func (r *Comparison) Broken() int {
	n := 0
	for _, l := range r.Limits {
		if l.Broken {
			n++
		}
	}
	return n
}
