package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// Summary describes a sorted sample. With Count 0, Min, Mean and Max are NaN and
// Percentiles is empty: they are undefined (k6 prints 0).
type Summary struct {
	Count          int
	Min, Mean, Max float64
	Percentiles    []PercentileStat
}

// PercentileStat is one percentile of a Summary.
type PercentileStat struct {
	P     float64 // in percent: 99.9
	Name  string  // k6's name: p(99.9)
	Value float64 // k6's p(N) (Percentile)
	// NearestRank is the value of rank Rank = ⌈(P/100)·n⌉ (NearestRank).
	NearestRank float64
	Rank        int
	CI          Interval
	// MinSamples is the count below which the percentile rests on fewer than
	// Options.MinAbove observations above it; TooFew is Count < MinSamples.
	MinSamples int
	TooFew     bool
	// RelWidth is (CI.Hi − CI.Lo)/|Value| (+Inf for an unbounded interval or a
	// zero value); Wide is RelWidth > Options.MaxRelWidth.
	RelWidth float64
	Wide     bool
}

// Options tunes Summarize. The zero value is not useful; start from
// DefaultOptions.
type Options struct {
	Percentiles []float64 // in percent
	Confidence  float64   // of the intervals, e.g. 0.95
	MinAbove    int       // observations wanted above a percentile
	MaxRelWidth float64   // a wider interval (relative to the value) is flagged
}

// DefaultOptions are analyze's defaults: p50 … p99.99, 95% intervals, at least 2
// observations above a percentile, intervals flagged above 20% of the value.
func DefaultOptions() Options {
	return Options{
		Percentiles: DefaultPercentiles,
		Confidence:  DefaultConfidence,
		MinAbove:    2,
		MaxRelWidth: 0.20,
	}
}

// Summarize describes sorted (ascending) values.
func Summarize(sorted []float64, o Options) Summary {
	s := Summary{Count: len(sorted)}
	if len(sorted) == 0 {
		s.Min, s.Mean, s.Max = math.NaN(), math.NaN(), math.NaN()
		return s
	}
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	s.Mean = Mean(sorted)
	for _, p := range o.Percentiles {
		ps := PercentileStat{P: p, Name: Name(p)}
		ps.Value, _ = Percentile(sorted, p)
		ps.NearestRank, ps.Rank, _ = NearestRank(sorted, p)
		ps.CI = QuantileInterval(sorted, p/100, o.Confidence)
		ps.MinSamples = MinSamples(p, o.MinAbove)
		ps.TooFew = ps.MinSamples == 0 || s.Count < ps.MinSamples
		ps.RelWidth = math.Inf(1)
		if ps.CI.Bounded() && ps.Value != 0 {
			ps.RelWidth = (ps.CI.Hi - ps.CI.Lo) / math.Abs(ps.Value)
		} else if ps.CI.Bounded() && ps.CI.Hi == ps.CI.Lo {
			ps.RelWidth = 0
		}
		ps.Wide = ps.RelWidth > o.MaxRelWidth
		s.Percentiles = append(s.Percentiles, ps)
	}
	return s
}

// Mean is the arithmetic mean (gonum's stat.Mean); NaN for no values.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return stat.Mean(x, nil)
}
