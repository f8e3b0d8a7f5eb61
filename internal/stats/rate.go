package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PoissonInterval is the exact (Garwood) confidence interval of the mean of a
// Poisson count n: [χ²(α/2; 2n)/2, χ²(1−α/2; 2n+2)/2], α = 1 − confidence.
// Divided by the time the count was taken over it bounds an event rate
// (requests per second); the lower end is 0 for n = 0. It assumes the events
// arrive independently (a Poisson process): requests of an open-model load
// test do, to a first approximation.
func PoissonInterval(n int64, confidence float64) (lo, hi float64) {
	if n < 0 || !(confidence > 0 && confidence < 1) {
		return math.NaN(), math.NaN()
	}
	alpha := 1 - confidence
	if n > 0 {
		lo = distuv.ChiSquared{K: float64(2 * n)}.Quantile(alpha/2) / 2
	}
	hi = distuv.ChiSquared{K: float64(2*n + 2)}.Quantile(1-alpha/2) / 2
	return lo, hi
}

// CompoundPoissonInterval is the normal-approximation confidence interval of
// the mean of a compound Poisson sum — events arriving as a Poisson process,
// each carrying an amount x (tokens a request): the sum's variance is Σx², so
// the interval is sum ± z·√(Σx²), z the normal quantile of (1+confidence)/2,
// clipped at 0. Divided by the window it bounds a token rate.
func CompoundPoissonInterval(sum, sumSquares, confidence float64) (lo, hi float64) {
	if !(confidence > 0 && confidence < 1) || sumSquares < 0 {
		return math.NaN(), math.NaN()
	}
	z := distuv.UnitNormal.Quantile((1 + confidence) / 2)
	half := z * math.Sqrt(sumSquares)
	return math.Max(0, sum-half), sum + half
}
