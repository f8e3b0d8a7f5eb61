package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
)

// Report is everything the page shows.
type Report struct {
	Title string
	// Generated is written under the title when not zero.
	Generated time.Time
	// Command is the command line that made the report, when known.
	Command   string
	Inputs    []Input
	Selection string // the selection flags, in words; empty for none
	// K6Version is the k6 version that wrote the inputs, when known.
	K6Version  string
	Confidence float64 // of the percentile intervals, e.g. 0.95
	Checks     *Checks // nil when no checks were given
	Metrics    []Metric
	// Warnings are shown near the top: damaged inputs, high failure rates, …
	Warnings []string
	// Health are the summary's client health and cache-hit lines
	// (SummaryHealth), shown in the Run section (the load-generator
	// warning is among Warnings only when it fires on a selected metric).
	Health []string
	// Throughput is the summary's throughput and goodput lines
	// (SummaryThroughput), one per group.
	Throughput []string
	// Cost are the summary's cost lines (SummaryCost), in the currency of
	// the Client's prices, shown under the health lines.
	Cost []string
	// History is the section of a run history (analyze history --report);
	// nil for none.
	History *History
	// Tail is the section on where the TTFT tail comes from (the
	// attribution of records inputs); nil for none.
	Tail *Tail
}

// Tail is the attribution of the TTFT tail to stages and request
// attributes (package attribution), with the stacked-stage figure. When
// the attribution could not run, Why says why and the rest is empty.
type Tail struct {
	Why      string
	Heading  string   // what the tail is: its percentile, threshold, size
	Findings []string // the sentences, headline first
	// Percentile is the tail's (99); BandLo and BandHi the median band's
	// (45, 55); MedianN and TailN the groups' sizes.
	Percentile, BandLo, BandHi float64
	MedianN, TailN             int
	Confidence                 float64 // of the intervals
	Stages                     []TailStage
	Apart                      []TailAttribute // the attributes that set the tail apart
	Figure                     *Figure         // the stacked-stage figure
}

// TailStage is one row of the stage table; the last row is the TTFT.
type TailStage struct {
	Name             string
	Share, Lo, Hi    float64 // of the tail's excess mean TTFT, with its interval
	MedianMS, TailMS float64 // mean time in the median and the tail requests
	Total            bool    // the TTFT row: the sum of the stages
}

// TailAttribute is an attribute that sets the tail apart.
type TailAttribute struct {
	Name           string
	Effect, Lo, Hi float64
	Where          string // the value or the medians: "3: 100% vs 24%"
}

// History is the trend of a scheduled test's runs: a figure per metric and
// the alerts.
type History struct {
	File     string // the history file
	Runs     int    // records read
	Series   int
	Settings string // the alert rules, in words
	Figures  []Figure
	// Alerts are the regressions and inconclusive runs; Latest the verdicts
	// on each series' last run, which the gate decides on.
	Alerts []string
	Latest []string
	OK     bool // the last runs pass the gate
	// Passed, Regressions and Undecided count the verdicts on the last runs:
	// ok, regression, and inconclusive or without a baseline. The badge
	// says "pass" only when something passed and the gate passes.
	Passed, Regressions, Undecided int
}

// Badge is a verdict badge: its words and its class ("pass", "fail" or
// "none").
type Badge struct{ Text, Class string }

// Badge is the history's verdict badge, from what was tested on the last
// runs: "pass" only when a verdict passed and the gate passes.
func (h *History) Badge() Badge {
	switch {
	case h.Regressions > 0:
		return Badge{fmt.Sprintf("last runs fail the gate: %d regression%s", h.Regressions, plural(h.Regressions)), "fail"}
	case h.Passed == 0 && h.OK:
		return Badge{"nothing tested on the last runs (no limit could be decided; accepted by --allow-inconclusive)", "none"}
	case h.Passed == 0:
		return Badge{"nothing tested on the last runs: the gate cannot decide", "fail"}
	case !h.OK:
		return Badge{fmt.Sprintf("last runs fail the gate: %d of %d verdicts undecided", h.Undecided, h.Passed+h.Undecided), "fail"}
	case h.Undecided > 0:
		return Badge{fmt.Sprintf("last runs pass: %d verdict%s pass, %d undecided (accepted)", h.Passed, plural(h.Passed), h.Undecided), "pass"}
	}
	return Badge{fmt.Sprintf("last runs pass: %d verdict%s pass", h.Passed, plural(h.Passed)), "pass"}
}

// Subtitle is the line under the title: when it was made, the inputs (a
// history page has none: it says its runs), the selection and k6's version.
func (r *Report) Subtitle() string {
	var parts []string
	if !r.Generated.IsZero() {
		parts = append(parts, "Generated "+r.Generated.UTC().Format("2006-01-02 15:04:05.000")+" UTC")
	}
	switch {
	case len(r.Inputs) > 0:
		parts = append(parts, fmt.Sprintf("%d input%s", len(r.Inputs), plural(len(r.Inputs))))
	case r.History != nil:
		parts = append(parts, fmt.Sprintf("%d run%s of %s", r.History.Runs, plural(r.History.Runs), r.History.File))
	}
	if r.Selection != "" {
		parts = append(parts, "selection: "+r.Selection)
	}
	if r.K6Version != "" {
		parts = append(parts, "k6 "+r.K6Version)
	}
	return strings.Join(parts, " · ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Input is one input file.
type Input struct {
	Label, Path string
	// First and Last are the times of its first and last kept sample.
	First, Last time.Time
	Points      int64 // samples of every metric
	Kept        int64 // samples of the selected metrics
	Notes       []string
}

// Checks are the results of k6-style checks.
type Checks struct {
	Rows           []CheckRow
	Passed, Failed int
	// Inconclusive checks could not be decided at the confidence level; they
	// fail unless AllowInconclusive. Total counts every check.
	Inconclusive      int
	AllowInconclusive bool
	Total             int
}

// CheckRow is one check.
type CheckRow struct {
	Check        string // as written: llm_ttft: p(99)<2000
	Observed     string // formatted with its unit; empty when there is no data
	Passed       bool
	Inconclusive bool   // too few samples, or an interval straddling the limit
	Reason       string // why it did not pass
}

// Metric is one metric's section.
type Metric struct {
	Name string
	Kind string // trend, rate, counter, gauge
	Unit string // ms, B or ""
	// Trend groups: the percentile table.
	Groups []Group
	// Rate, Counter and Gauge groups: label and value lines.
	Values []Value
	// Diagnosis holds the tail diagnosis sentences, one per group.
	Diagnosis []string
	// Drift holds the drift sentences, one per group.
	Drift []string
	// Figures are drawn in order: the ECDF, then the drift over time.
	Figures []Figure
	// Windows is the per-window table of the drift figure.
	Windows []WindowRow
	Notes   []string
}

// Group is one row of a Trend's table.
type Group struct {
	Label          string
	Count          int
	Min, Mean, Max float64
	Percentiles    []Percentile
	Notes          []string
}

// Percentile is one cell of the table: k6's value and its confidence interval.
type Percentile struct {
	Name   string // p(99)
	Value  float64
	Lo, Hi float64 // ±Inf when unbounded
	TooFew bool    // fewer than two samples above it
}

// Value is a line of a non-Trend metric: "model=a: 2.31% (57 of 2,468) — http_429: 40, timeout: 17".
type Value struct {
	Label, Text string
}

// WindowRow is one time window of one group.
type WindowRow struct {
	Group         string
	Start, End    time.Duration
	N             int
	P50, P90, P99 float64
	TooFewForP99  bool
}

// Figure is a figure drawn inline as SVG and saved as File (a .png name,
// relative to the report's folder).
type Figure struct {
	File    string
	Caption string
	Fig     *plot.Figure
}
