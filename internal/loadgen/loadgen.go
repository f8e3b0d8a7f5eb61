// Package loadgen holds the one rule that says when a run's timings are
// limited by the load generator rather than by the LLM: the helper's health
// summary (and so the runner's end-of-run warning) and analyze's summary both
// apply it.
package loadgen

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

// Limited applies the bound to a client lag p99 and an ITL p50 (≤ 0 when
// unknown: the lag is then judged alone). why says which bound was passed.
func Limited(lagP99, itlP50 time.Duration) (limited bool, why string) {
	switch {
	case lagP99 > MaxLag:
		return true, fmt.Sprintf("client lag p99 %s ms is above %s ms", ms(lagP99), ms(MaxLag))
	case itlP50 > 0 && float64(lagP99) > MaxLagShareOfITL*float64(itlP50):
		return true, fmt.Sprintf("client lag p99 %s ms is above %g%% of the ITL p50 (%s ms)",
			ms(lagP99), 100*MaxLagShareOfITL, ms(itlP50))
	}
	return false, ""
}

// ms formats a duration in milliseconds to 4 significant digits.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'g', 4, 64)
}
