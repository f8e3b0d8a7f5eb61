// Package headroom holds the one rule that says when a run's timings may be
// limited by the load generator rather than by the LLM: run's end-of-run
// warning, analyze's summary and the sweep's levels all apply it, to the same
// statistic of the same samples.
//
// It guards Bound: calibrate's mid-stream lag p99 against the mock's ground
// truth, what the machine adds to the events the streams read. Its two
// statistics are medians over requests, one sample each: llm_client_lag, the
// p99 of the lags of the helper's loopback probes while the request ran (read
// time − write time, taken the way the stream reader takes an event's time),
// and llm_client_cpu_idle, the machine's idle CPU share while it ran (Linux).
// The bounds were chosen from calibrate's ground truth at six loads on a
// quiet, a half-busy and a saturated machine (scripts/loadgen-study.sh,
// testdata/study.jsonl, docs/calibrate.md#the-load-generator-rule).
package headroom

import (
	"fmt"
	"strconv"
	"time"
)

// Bound is the error the rule guards: a mid-stream lag p99 (calibrate's
// figure) above it and the machine, not the server, shapes the numbers.
const Bound = time.Millisecond

// The rule's bounds: results may be limited by the load generator when the
// median request ran with less than MinIdle of the machine's CPUs idle, or
// when its probe-lag p99 is above MaxClientLag. In the study (k6 under
// SCHED_IDLE, as run starts it), the cases within Bound ran at 31.7% idle or
// more and those beyond it at 18.9% or less: MinIdle is about midway. No case
// that kept its idle share went beyond Bound, and the largest median probe
// lag of a case within it was 0.101 ms: MaxClientLag sits half again above
// it, a backstop for the stalls an idle share cannot show (a container
// throttled by its CPU quota still sees the host's idle CPUs).
const (
	MinIdle      = 0.25
	MaxClientLag = 150 * time.Microsecond
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
	// CPUIdle is k6's p(50) of llm_client_cpu_idle (0..1): the idle share
	// of the machine's CPUs while the median request ran; nil when unknown
	// (not Linux, or every request shorter than CPUSampleInterval).
	CPUIdle *float64
}

// Judge applies the bounds to s. why says which bound was passed, in one
// short clause, or, with too few samples, that there is no verdict and why.
func Judge(s Signals) (limited bool, why string) {
	if s.CPUIdle != nil && *s.CPUIdle < MinIdle {
		return true, fmt.Sprintf("the CPUs were %.0f%% idle while the median request ran (under %.0f%%)", 100**s.CPUIdle, 100*MinIdle)
	}
	if s.Samples < MinSamples {
		return false, fmt.Sprintf("no load-generator verdict: %d client lag sample(s), the rule needs %d", s.Samples, MinSamples)
	}
	if s.ClientLagP50MS > ms(MaxClientLag) {
		return true, fmt.Sprintf("client lag p50 %s ms over %d requests is above %s ms", fmtMS(s.ClientLagP50MS), s.Samples, fmtMS(ms(MaxClientLag)))
	}
	return false, ""
}

// Line is the warning's one line: Warning, why, and where to read more.
func Line(why string) string { return Warning + ": " + why + " (" + Doc + ")" }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fmtMS formats milliseconds to 4 significant digits.
func fmtMS(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
