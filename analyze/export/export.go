// Package export writes one run as another harness's report format. The one
// format so far is llm-d-benchmark's standard benchmark report v0.2 (the
// pydantic model llmdbenchmark/analysis/benchmark_report/schema_v0_2.py and
// its JSON schema br_v0_2_json_schema.json, read from github.com/llm-d/
// llm-d-benchmark at commit 8bc9f1dd, Apache-2.0; docs/export.md): a team
// comparing harnesses with llm-d's tools can put our runs beside the
// converters' from GuideLLM, inference-perf, vLLM and AIPerf.
//
// The report is built from what analyze summary computes (result.Summarize,
// the request join), so its numbers are the summary's.
package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Version is the report schema's version.
const Version = "0.2"

// Percentiles are the schema's percentile fields (p0p1 … p99p9), in percent:
// the summary must be computed with them.
var Percentiles = []float64{0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9}

// Report is the benchmark report v0.2 (BenchmarkReportV02): version, run,
// scenario, results. Absent fields are left out, as the model's dump
// (exclude_none) does.
type Report struct {
	Version  string    `json:"version"`
	Run      RunInfo   `json:"run"`
	Scenario *Scenario `json:"scenario,omitempty"`
	Results  Results   `json:"results"`
}

// RunInfo is the schema's Run.
type RunInfo struct {
	UID         string   `json:"uid"`
	Time        *RunTime `json:"time,omitempty"`
	Description string   `json:"description,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
}

// RunTime is the schema's RunTime: ISO-8601 times and duration.
type RunTime struct {
	Start    string `json:"start,omitempty"`
	End      string `json:"end,omitempty"`
	Duration string `json:"duration,omitempty"`
}

// Scenario is the schema's Scenario: the load only (the stack under test is
// not known to a client-side harness).
type Scenario struct {
	Load Load `json:"load"`
}

// Load is the schema's Load.
type Load struct {
	Metadata     LoadMetadata     `json:"metadata"`
	Standardized LoadStandardized `json:"standardized"`
	Native       LoadNative       `json:"native"`
}

// LoadMetadata is the schema's LoadMetadata.
type LoadMetadata struct {
	SchemaVersion string `json:"schema_version"`
	CfgID         string `json:"cfg_id,omitempty"`
	Description   string `json:"description,omitempty"`
}

// LoadStandardized is the schema's LoadStandardized.
type LoadStandardized struct {
	Tool         string          `json:"tool"`
	ToolVersion  string          `json:"tool_version"`
	Source       string          `json:"source"` // random, sampled, unknown
	InputSeqLen  SequenceLength  `json:"input_seq_len"`
	OutputSeqLen *SequenceLength `json:"output_seq_len,omitempty"`
	RateQPS      *float64        `json:"rate_qps,omitempty"`
	Concurrency  *int            `json:"concurrency,omitempty"`
}

// SequenceLength is the schema's SequenceLength.
type SequenceLength struct {
	Distribution string   `json:"distribution"` // fixed, gaussian, uniform, other
	Value        float64  `json:"value"`
	StdDev       *float64 `json:"std_dev,omitempty"`
	Min          *int     `json:"min,omitempty"`
	Max          *int     `json:"max,omitempty"`
}

// LoadNative is the schema's LoadNative: our own description of the run.
type LoadNative struct {
	Config NativeConfig `json:"config"`
}

// NativeConfig is the run as xk6-llmstream describes it (the schema leaves
// native.config open).
type NativeConfig struct {
	Inputs []string `json:"inputs"`
	// OpenLoop is true when requests had scheduled send times (an
	// arrival-rate executor or a trace replay), false for closed-loop VUs.
	OpenLoop bool `json:"open_loop"`
	// PeakConcurrency is the most requests in flight at once.
	PeakConcurrency int      `json:"peak_concurrency"`
	SLO             []string `json:"slo,omitempty"`
	GoodputSource   string   `json:"goodput_source,omitempty"`
}

// Results is the schema's Results.
type Results struct {
	RequestPerformance RequestPerformance `json:"request_performance"`
	// Observability holds our extras: the schema's Observability allows
	// ad-hoc metric keys ("extra: allow"), each {statistics: …} as in its
	// example.
	Observability map[string]Extra `json:"observability,omitempty"`
}

// Extra is one ad-hoc metric entry of Observability.
type Extra struct {
	Statistics Statistics `json:"statistics"`
}

// RequestPerformance is the schema's RequestPerformance (aggregate only).
type RequestPerformance struct {
	Aggregate Aggregate `json:"aggregate"`
}

// Aggregate is the schema's AggregateRequestPerformance.
type Aggregate struct {
	Requests   Requests   `json:"requests"`
	Latency    Latency    `json:"latency"`
	Throughput Throughput `json:"throughput"`
}

// Requests is the schema's AggregateRequests.
type Requests struct {
	Total        int64       `json:"total"`
	Failures     int64       `json:"failures"`
	InputLength  *Statistics `json:"input_length,omitempty"`
	OutputLength *Statistics `json:"output_length,omitempty"`
}

// Latency is the schema's AggregateLatency.
type Latency struct {
	TTFT    *Statistics `json:"time_to_first_token,omitempty"`
	NTPOT   *Statistics `json:"normalized_time_per_output_token,omitempty"`
	TPOT    *Statistics `json:"time_per_output_token,omitempty"`
	ITL     *Statistics `json:"inter_token_latency,omitempty"`
	Request *Statistics `json:"request_latency,omitempty"`
}

// Throughput is the schema's AggregateThroughput.
type Throughput struct {
	InputTokenRate  *Statistics `json:"input_token_rate,omitempty"`
	OutputTokenRate *Statistics `json:"output_token_rate,omitempty"`
	TotalTokenRate  *Statistics `json:"total_token_rate,omitempty"`
	RequestRate     *Statistics `json:"request_rate,omitempty"`
}

// Statistics is the schema's Statistics: units and mean required.
type Statistics struct {
	Units string   `json:"units"`
	Mean  float64  `json:"mean"`
	Min   *float64 `json:"min,omitempty"`
	P0p1  *float64 `json:"p0p1,omitempty"`
	P1    *float64 `json:"p1,omitempty"`
	P5    *float64 `json:"p5,omitempty"`
	P10   *float64 `json:"p10,omitempty"`
	P25   *float64 `json:"p25,omitempty"`
	P50   *float64 `json:"p50,omitempty"`
	P75   *float64 `json:"p75,omitempty"`
	P90   *float64 `json:"p90,omitempty"`
	P95   *float64 `json:"p95,omitempty"`
	P99   *float64 `json:"p99,omitempty"`
	P99p9 *float64 `json:"p99p9,omitempty"`
	Max   *float64 `json:"max,omitempty"`
}

// Run is what the report says of the run besides the summary.
type Run struct {
	UID         string // "": a hash of the inputs
	Description string
	ToolVersion string
	Inputs      []string
	SLO         []string
}

// The schema's units.
const (
	unitMS       = "ms"
	unitMSToken  = "ms/token"
	unitCount    = "count"
	unitTokensS  = "tokens/s"
	unitQueriesS = "queries/s"
	unitFraction = "fraction"
)

// Build makes the report of a summary with one group (no --by) and its
// request join (d.Requests), computed with Percentiles.
func Build(sum *result.Summary, d *rundata.Data, run Run) (*Report, error) {
	if len(sum.Throughput) != 1 || d.Requests == nil {
		return nil, fmt.Errorf("export: want one group of joined requests (no --by; the inputs' requests need llm_request_id), got %d groups", len(sum.Throughput))
	}
	tp := sum.Throughput[0]
	reqs := requestStats(d.Requests)
	rep := &Report{Version: Version, Run: runInfo(sum, run, reqs)}
	rep.Scenario = scenario(sum, run, reqs, tp)
	agg := &rep.Results.RequestPerformance.Aggregate
	agg.Requests = Requests{Total: tp.Requests, Failures: tp.Failed,
		InputLength: distribution(reqs.input, unitCount), OutputLength: distribution(reqs.output, unitCount)}
	agg.Latency = Latency{
		TTFT: trend(sum, metrics.TTFT, unitMS), TPOT: trend(sum, metrics.TPOT, unitMSToken),
		ITL: trend(sum, metrics.ITL, unitMSToken), Request: trend(sum, metrics.E2E, unitMS),
		NTPOT: distribution(reqs.ntpot, unitMSToken),
	}
	out, total, achieved := value(tp.OutputTPS), value(tp.TotalTPS), value(tp.AchievedRPS)
	agg.Throughput = Throughput{OutputTokenRate: mean(out, unitTokensS), TotalTokenRate: mean(total, unitTokensS),
		RequestRate: mean(achieved, unitQueriesS)}
	if out != nil && total != nil {
		agg.Throughput.InputTokenRate = mean(f64(*total-*out), unitTokensS)
	}
	rep.Results.Observability = extras(sum, tp)
	return rep, nil
}

// reqStats are the successful requests' per-request figures.
type reqStats struct {
	input, output, ntpot []float64 // sorted
	start, end           time.Time
	peak                 int
}

// requestStats reads the join: token lengths and NTPOT (e2e / output tokens,
// inference-perf's) of the successful requests, the run's first start and
// last end, and the peak of requests in flight (start = end − e2e).
func requestStats(j *rundata.Requests) reqStats {
	var s reqStats
	type edge struct {
		t     time.Time
		delta int
	}
	var edges []edge
	for i := range j.List {
		q := &j.List[i]
		if !q.Ended {
			continue
		}
		start := q.End
		if !math.IsNaN(q.E2E) {
			start = q.End.Add(-time.Duration(q.E2E * float64(time.Millisecond)))
		}
		edges = append(edges, edge{start, 1}, edge{q.End, -1})
		if s.start.IsZero() || start.Before(s.start) {
			s.start = start
		}
		if q.End.After(s.end) {
			s.end = q.End
		}
		if q.Failed {
			continue
		}
		s.input = append(s.input, q.InputTokens)
		s.output = append(s.output, q.OutputTokens)
		if q.OutputTokens > 0 && !math.IsNaN(q.E2E) {
			s.ntpot = append(s.ntpot, q.E2E/q.OutputTokens)
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		return a.delta - b.delta // an end before a start at the same time
	})
	n := 0
	for _, e := range edges {
		n += e.delta
		s.peak = max(s.peak, n)
	}
	slices.Sort(s.input)
	slices.Sort(s.output)
	slices.Sort(s.ntpot)
	return s
}

func runInfo(sum *result.Summary, run Run, reqs reqStats) RunInfo {
	r := RunInfo{UID: run.UID, Description: run.Description, Keywords: []string{"xk6-llmstream"}}
	if r.UID == "" {
		h := sha256.New()
		for _, in := range sum.Inputs {
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00", in.Path, in.Lines, in.Points)
		}
		fmt.Fprintf(h, "%d", reqs.start.UnixNano())
		r.UID = hex.EncodeToString(h.Sum(nil))[:32]
	}
	if !reqs.start.IsZero() {
		r.Time = &RunTime{Start: reqs.start.UTC().Format(time.RFC3339Nano), End: reqs.end.UTC().Format(time.RFC3339Nano),
			Duration: fmt.Sprintf("PT%gS", reqs.end.Sub(reqs.start).Seconds())}
	}
	return r
}

// scenario is the load: the tool, the token lengths, and its shape: open
// loop (requests with a scheduled send time, llm_e2e_scheduled) gives
// rate_qps, the requests offered per second over the window; closed loop
// the peak concurrency.
func scenario(sum *result.Summary, run Run, reqs reqStats, tp result.Throughput) *Scenario {
	open := slices.ContainsFunc(sum.Metrics, func(m result.Metric) bool {
		return m.Name == metrics.E2EScheduled && len(m.Groups) > 0 && m.Groups[0].Count > 0
	})
	st := LoadStandardized{Tool: "xk6-llmstream", ToolVersion: run.ToolVersion, Source: "unknown",
		InputSeqLen: seqLen(reqs.input), OutputSeqLen: nil}
	if len(reqs.output) > 0 {
		o := seqLen(reqs.output)
		st.OutputSeqLen = &o
	}
	if rps := value(tp.RPS); open && rps != nil && *rps > 0 {
		st.RateQPS = rps
	} else if !open && reqs.peak >= 1 {
		st.Concurrency = &reqs.peak
	}
	h := sha256.Sum256([]byte(strings.Join(append(append([]string{}, run.Inputs...), run.SLO...), "\x00")))
	return &Scenario{Load: Load{
		Metadata:     LoadMetadata{SchemaVersion: "0.0.1", CfgID: hex.EncodeToString(h[:16]), Description: "k6 load through xk6-llmstream"},
		Standardized: st,
		Native: LoadNative{Config: NativeConfig{Inputs: run.Inputs, OpenLoop: open, PeakConcurrency: reqs.peak,
			SLO: run.SLO, GoodputSource: tp.GoodputSource}},
	}}
}

// seqLen is a token length distribution: fixed when every request had the
// same, else "other" with its mean, standard deviation, min and max.
func seqLen(sorted []float64) SequenceLength {
	if len(sorted) == 0 {
		return SequenceLength{Distribution: "other", Value: 0}
	}
	lo, hi := sorted[0], sorted[len(sorted)-1]
	if lo == hi {
		return SequenceLength{Distribution: "fixed", Value: lo}
	}
	var sum, sq float64
	for _, v := range sorted {
		sum += v
	}
	m := sum / float64(len(sorted))
	for _, v := range sorted {
		sq += (v - m) * (v - m)
	}
	sd := math.Sqrt(sq / float64(len(sorted)))
	mn, mx := int(lo), max(int(hi), 1)
	return SequenceLength{Distribution: "other", Value: m, StdDev: &sd, Min: &mn, Max: &mx}
}
