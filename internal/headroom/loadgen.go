// Package loadgen holds the one rule that says when a run's timings are
// limited by the load generator rather than by the LLM: the helper's health
// summary (and so the runner's end-of-run warning) and analyze's summary both
// apply it, to the same statistic of the same samples: k6's p(99) of
// llm_client_lag, one sample per request.
package headroom

import (
	"fmt"
	"strconv"
	"time"
)

// The documented bound: results are limited by the load generator when the
// client lag's p99 is above MaxLag, or above MaxLagShareOfITL of the ITL's p50.
const (
	MaxLag           = time.Millisecond
	MaxLagShareOfITL = 0.10
)

// Warning is what the runner and analyze say when Judge finds a run limited.
// It says "may": the lag Judge reads is the canary's, each request's worst
// timer lateness, which calibrate's ground truth showed far above the
// client's real error on a quiet machine (docs/calibrate.md); calibrate
// measures it.
const Warning = "results may be limited by the load generator"

// MinSamples is the number of llm_client_lag samples (requests) the rule
// needs before it says anything. Below 100 samples, k6's p(99) is the largest
// sample or an interpolation toward it: the figure would be one request's bad
// luck (a first connection, a GC pause), not the machine's state. At 100 the
// p(99) rests on the second-largest sample.
const MinSamples = 100

// Judge applies the bound to a client lag p99 and an ITL p50 in milliseconds
// (≤ 0 when unknown: the lag is then judged alone), over n lag samples.
// why says which bound was passed, or, with too few samples, that there is
// no verdict and how many samples there were.
func Judge(lagP99MS, itlP50MS float64, n int) (limited bool, why string) {
	if n < MinSamples {
		return false, fmt.Sprintf("no load-generator verdict: %d client lag sample(s), the rule needs %d", n, MinSamples)
	}
	switch {
	case lagP99MS > ms(MaxLag):
		return true, fmt.Sprintf("client lag p99 %s ms (%d requests) is above %s ms", fmtMS(lagP99MS), n, fmtMS(ms(MaxLag)))
	case itlP50MS > 0 && lagP99MS > MaxLagShareOfITL*itlP50MS:
		return true, fmt.Sprintf("client lag p99 %s ms (%d requests) is above %g%% of the ITL p50 (%s ms)",
			fmtMS(lagP99MS), n, 100*MaxLagShareOfITL, fmtMS(itlP50MS))
	}
	return false, ""
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fmtMS formats milliseconds to 4 significant digits.
func fmtMS(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
