package bench

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/calibrate"
)

// MinNForP999 is the smallest number of values for which a Summary reports
// p99.9: with fewer, no value lies beyond rank 0.999·(n−1) and the figure is
// only the maximum in disguise.
const MinNForP999 = 1000

// Summary is the distribution of a set of durations.
type Summary struct {
	N                   int
	P50, P99, P999, Max time.Duration
}

// Summarize sorts a copy of ds and returns its p50, p99, p99.9 (linear
// interpolation at rank p·(n−1), as k6 computes percentiles) and maximum.
// P999 is computed whatever n is; HasP999 says whether it means anything.
func Summarize(ds []time.Duration) Summary {
	if len(ds) == 0 {
		return Summary{}
	}
	s := make([]float64, len(ds))
	for i, d := range ds {
		s[i] = float64(d)
	}
	sort.Float64s(s)
	// stats.Percentile is k6's p(N); durations below 2⁵³ ns (104 days) are
	// exact in float64, and the interpolated value is truncated to the ns.
	p := func(n float64) time.Duration {
		v, _ := stats.Percentile(s, n)
		return time.Duration(v)
	}
	return Summary{N: len(s), P50: p(50), P99: p(99), P999: p(99.9), Max: time.Duration(s[len(s)-1])}
}

// HasP999 reports whether there are enough values (MinNForP999) for P999 to
// be reported.
func (s Summary) HasP999() bool { return s.N >= MinNForP999 }

// ms formats d in milliseconds with microsecond resolution.
func ms(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }

// String formats the summary as "p50 / p99 / max" in milliseconds.
func (s Summary) String() string {
	return ms(s.P50) + " / " + ms(s.P99) + " / " + ms(s.Max)
}

// Tail formats the summary as "p50 / p99 / p99.9 / max (n)" in milliseconds,
// with "-" for p99.9 when there are too few values (HasP999) and for
// everything when there are none.
func (s Summary) Tail() string {
	if s.N == 0 {
		return "- (0)"
	}
	p999 := "-"
	if s.HasP999() {
		p999 = ms(s.P999)
	}
	return fmt.Sprintf("%s / %s / %s / %s (%d)", ms(s.P50), ms(s.P99), p999, ms(s.Max), s.N)
}

// MidLag is the mid-stream lag's summary with the 95% interval of its p99
// (calibrate.LagP99Interval, the rule calibrate reports it with), in ms;
// ends are ±Inf when too few stretches of time bound it.
type MidLag struct {
	Summary
	P99Lo, P99Hi float64
}

// SummarizeMid summarizes l's mid-stream lags with their p99's interval.
func SummarizeMid(l *Lags) MidLag {
	m := MidLag{Summary: Summarize(l.By[PhaseMid]), P99Lo: math.Inf(-1), P99Hi: math.Inf(1)}
	if m.N == 0 {
		return m
	}
	v := make([]float64, len(l.By[PhaseMid]))
	for i, d := range l.By[PhaseMid] {
		v[i] = float64(d) / 1e6
	}
	m.P99Lo, m.P99Hi = calibrate.LagP99Interval(v, l.MidWriteNS)
	return m
}

// Bounded reports whether both ends of the p99's interval are finite.
func (m MidLag) Bounded() bool { return !math.IsInf(m.P99Lo, 0) && !math.IsInf(m.P99Hi, 0) }

// CI formats the p99's interval as "[lo, hi]" in ms (−∞ and ∞ for open ends).
func (m MidLag) CI() string {
	end := func(v float64) string {
		switch {
		case math.IsInf(v, -1):
			return "−∞"
		case math.IsInf(v, 1):
			return "∞"
		}
		return fmt.Sprintf("%.3f", v)
	}
	return "[" + end(m.P99Lo) + ", " + end(m.P99Hi) + "]"
}

// Tail is Summary.Tail with the p99's interval after the p99.
func (m MidLag) Tail() string {
	if m.N == 0 {
		return m.Summary.Tail()
	}
	p999 := "-"
	if m.HasP999() {
		p999 = ms(m.P999)
	}
	return fmt.Sprintf("%s / %s %s / %s / %s (%d)", ms(m.P50), ms(m.P99), m.CI(), p999, ms(m.Max), m.N)
}
