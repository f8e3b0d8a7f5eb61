package shape

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Window holds the percentiles of the samples with Start ≤ T < End.
type Window struct {
	Start, End    time.Duration
	N             int
	P50, P90, P99 float64 // k6's; NaN when the window is empty
	// TooFewForP99 is true when fewer than 200 samples (two above P99) are
	// in the window: its P99 is close to its maximum.
	TooFewForP99 bool
}

// MaxWindows is the most windows Windows makes; a shorter width is an error.
const MaxWindows = 100_000

// Windows cuts [0, end of the last sample) into windows of the given width,
// aligned at 0 (the start of the run), and computes each one's percentiles.
// The samples need not be in time order; a sample before 0 is an error.
func Windows(samples []stats.Sample, width time.Duration) ([]Window, error) {
	if width <= 0 {
		return nil, fmt.Errorf("drift: window width %v is not positive", width)
	}
	if len(samples) == 0 {
		return nil, nil
	}
	var last time.Duration
	for i, s := range samples {
		if s.T < 0 {
			return nil, fmt.Errorf("drift: sample %d is at %v, before the start of the run", i, s.T)
		}
		last = max(last, s.T)
	}
	count := int(last/width) + 1
	if count > MaxWindows {
		return nil, fmt.Errorf("drift: a window of %v cuts the run (%v) into %d windows, more than %d; use a wider one", width, last, count, MaxWindows)
	}
	buckets := make([][]float64, count)
	for _, s := range samples {
		i := int(s.T / width)
		buckets[i] = append(buckets[i], s.V)
	}
	need := stats.MinSamples(p99, minAbove)
	out := make([]Window, count)
	for i, b := range buckets {
		slices.Sort(b)
		w := Window{Start: time.Duration(i) * width, End: time.Duration(i+1) * width, N: len(b),
			P50: math.NaN(), P90: math.NaN(), P99: math.NaN(), TooFewForP99: len(b) < need}
		if len(b) > 0 {
			w.P50, _ = stats.Percentile(b, 50)
			w.P90, _ = stats.Percentile(b, 90)
			w.P99, _ = stats.Percentile(b, p99)
		}
		out[i] = w
	}
	return out, nil
}
