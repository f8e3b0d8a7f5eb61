// Package headroom holds the one rule that says when a run's timings may be
// limited by the load generator rather than by the LLM: run's end-of-run
// warning, analyze's summary and the sweep's levels all apply it, to the same
// statistic of the same samples.
//
// The statistic is the median of llm_client_lag, one sample per request: the
// p99 of the lags of the helper's loopback probes while the request ran (read
// time − write time, taken the way the stream reader takes an event's time).
// Its median estimates the p99 of what the machine added to the events the
// streams read, the figure calibrate measures against the mock's ground truth
// (docs/calibrate.md, "The load-generator rule"). Where the machine's idle
// CPU share is known (run and the sweep, on Linux), a machine with almost no
// idle CPU is judged limited too.
package headroom

import (
	"fmt"
	"strconv"
	"time"
)

// The documented bounds: results may be limited by the load generator when
// the median request's probe-lag p99 is above MaxLag, or when the machine's
// CPUs were less than MinIdle idle while k6 ran.
const (
	MaxLag  = time.Millisecond
	MinIdle = 0.10
)

// Warning is what run, analyze and the sweep say when Judge finds a run
// limited. It says "may": the probes estimate the client's error; calibrate
// measures it against ground truth.
const Warning = "results may be limited by the load generator"

// Doc is where the rule and what to do about it are explained.
const Doc = "docs/calibrate.md#the-load-generator-rule"

// MinSamples is the number of llm_client_lag samples (requests) the rule
// needs before it says anything: a median of fewer would be a handful of
// requests' luck (a first connection, a GC pause), not the machine's state.
const MinSamples = 100

// Signals are what a run shows of its load generator's state.
type Signals struct {
	// ClientLagP50MS is k6's p(50) of llm_client_lag, in ms, over Samples
	// requests.
	ClientLagP50MS float64
	Samples        int
	// CPUIdle is the machine's idle CPU share (0..1) while k6 ran; nil when
	// unknown (analyze reads k6's output alone).
	CPUIdle *float64
}

// Judge applies the bounds to s. why says which bound was passed, in one
// short clause, or, with too few samples, that there is no verdict and why.
func Judge(s Signals) (limited bool, why string) {
	if s.CPUIdle != nil && *s.CPUIdle < MinIdle {
		return true, fmt.Sprintf("the CPUs were %.0f%% idle while k6 ran (under %.0f%%)", 100**s.CPUIdle, 100*MinIdle)
	}
	if s.Samples < MinSamples {
		return false, fmt.Sprintf("no load-generator verdict: %d client lag sample(s), the rule needs %d", s.Samples, MinSamples)
	}
	if s.ClientLagP50MS > ms(MaxLag) {
		return true, fmt.Sprintf("client lag p50 %s ms over %d requests is above %s ms", fmtMS(s.ClientLagP50MS), s.Samples, fmtMS(ms(MaxLag)))
	}
	return false, ""
}

// Line is the warning's one line: Warning, why, and where to read more.
func Line(why string) string { return Warning + ": " + why + " (" + Doc + ")" }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fmtMS formats milliseconds to 4 significant digits.
func fmtMS(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
