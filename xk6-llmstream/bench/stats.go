package bench

import (
	"fmt"
	"sort"
	"time"
)

// Summary is the distribution of a set of durations.
type Summary struct {
	N             int
	P50, P99, Max time.Duration
}

// Summarize sorts a copy of ds and returns its p50, p99 (linear interpolation
// at rank p·(n−1), as k6 computes percentiles) and maximum.
func Summarize(ds []time.Duration) Summary {
	if len(ds) == 0 {
		return Summary{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return Summary{N: len(s), P50: quantile(s, 0.50), P99: quantile(s, 0.99), Max: s[len(s)-1]}
}

func quantile(sorted []time.Duration, p float64) time.Duration {
	r := p * float64(len(sorted)-1)
	lo := int(r)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := r - float64(lo)
	return sorted[lo] + time.Duration(f*float64(sorted[lo+1]-sorted[lo]))
}

// ms formats d in milliseconds with microsecond resolution.
func ms(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }

// String formats the summary as "p50/p99/max ms".
func (s Summary) String() string {
	return ms(s.P50) + " / " + ms(s.P99) + " / " + ms(s.Max)
}
