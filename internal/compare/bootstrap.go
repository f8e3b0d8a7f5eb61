package compare

import (
	"math"
	"math/rand/v2"

	"github.com/llmstream/xk6-llmstream/internal/stats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// resampler draws bootstrap replicates of one statistic of one sorted sample
// without building the resamples (see the package documentation).
type resampler struct {
	sorted []float64
	rng    *rand.Rand
	// For a percentile: the 1-based order statistic j below rank p·(n−1),
	// the interpolation fraction, and U_(j) ~ Beta(j, n−j+1).
	j    int
	frac float64
	beta distuv.Beta
	// For the mean: its normal approximation.
	mean, se float64
	isMean   bool
}

func newResampler(sorted []float64, s Stat, rng *rand.Rand) *resampler {
	r := &resampler{sorted: sorted, rng: rng}
	n := len(sorted)
	pct, ok := s.Percent()
	if !ok {
		r.isMean = true
		r.mean, r.se = meanSE(sorted)
		return r
	}
	i, frac := stats.Rank(n, pct) // k6's rank, as stats.Percentile takes it
	r.j = i + 1
	r.frac = frac
	r.beta = distuv.Beta{Alpha: float64(r.j), Beta: float64(n - r.j + 1), Src: rng}
	return r
}

// draw returns one bootstrap replicate of the statistic.
func (r *resampler) draw() float64 {
	if r.isMean {
		return r.mean + r.se*r.rng.NormFloat64()
	}
	n := len(r.sorted)
	u1 := r.beta.Rand()
	x1 := r.at(u1)
	if r.frac == 0 || r.j >= n {
		return x1
	}
	// The next order statistic: the smallest of the n−j uniforms above u1.
	u2 := u1 + (1-u1)*(1-math.Pow(r.rng.Float64(), 1/float64(n-r.j)))
	return x1 + r.frac*(r.at(u2)-x1)
}

// at is the sample's quantile function: the value at index ⌊u·n⌋.
func (r *resampler) at(u float64) float64 {
	n := len(r.sorted)
	return r.sorted[min(n-1, max(0, int(u*float64(n))))]
}

// meanSE returns the mean and its standard error s/√n.
func meanSE(x []float64) (mean, se float64) {
	if len(x) < 2 {
		return stat.Mean(x, nil), 0
	}
	mean, sd := stat.MeanStdDev(x, nil)
	return mean, sd / math.Sqrt(float64(len(x)))
}
