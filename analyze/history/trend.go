package history

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// MannKendall is the Mann–Kendall test of a monotone trend in a sequence of
// values (one per run, in time order): S = Σ_{i<j} sign(y_j − y_i), whose
// variance without a trend is [n(n−1)(2n+5) − Σ t(t−1)(2t+5)]/18 over the
// groups of t tied values; Z is S corrected for continuity, over its
// standard deviation, and PUp the one-sided p-value of an upward trend,
// P(N(0,1) ≥ Z). It needs no assumption about the values' distribution.
type MannKendall struct {
	N   int
	S   int
	Z   float64
	PUp float64
}

// MannKendallTest tests y for an upward trend. With fewer than 3 values it
// returns PUp = 1 (no evidence).
func MannKendallTest(y []float64) MannKendall {
	n := len(y)
	mk := MannKendall{N: n, PUp: 1}
	if n < 3 {
		return mk
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch {
			case y[j] > y[i]:
				mk.S++
			case y[j] < y[i]:
				mk.S--
			}
		}
	}
	v := float64(n*(n-1)*(2*n+5)) / 18
	sorted := slices.Clone(y)
	slices.Sort(sorted)
	for i := 0; i < n; {
		j := i + 1
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		t := float64(j - i)
		v -= t * (t - 1) * (2*t + 5) / 18
		i = j
	}
	if v <= 0 {
		return mk
	}
	switch {
	case mk.S > 0:
		mk.Z = float64(mk.S-1) / math.Sqrt(v)
	case mk.S < 0:
		mk.Z = float64(mk.S+1) / math.Sqrt(v)
	}
	mk.PUp = distuv.UnitNormal.Survival(mk.Z)
	return mk
}

// TheilSen is the Theil–Sen line through values at positions 0, 1, …, n−1:
// Slope is the median of the slopes between every pair, Intercept the median
// of y_i − Slope·i. A few outlying runs do not move it.
type TheilSen struct {
	Slope, Intercept float64
}

// At is the line's value at position x.
func (t TheilSen) At(x float64) float64 { return t.Intercept + t.Slope*x }

// TheilSenFit fits y; NaN for fewer than 2 values. The medians are
// stats.Percentile's p(50).
func TheilSenFit(y []float64) TheilSen {
	n := len(y)
	if n < 2 {
		return TheilSen{math.NaN(), math.NaN()}
	}
	slopes := make([]float64, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			slopes = append(slopes, (y[j]-y[i])/float64(j-i))
		}
	}
	slices.Sort(slopes)
	slope, _ := stats.Percentile(slopes, 50)
	res := make([]float64, n)
	for i, v := range y {
		res[i] = v - slope*float64(i)
	}
	slices.Sort(res)
	icpt, _ := stats.Percentile(res, 50)
	return TheilSen{Slope: slope, Intercept: icpt}
}
