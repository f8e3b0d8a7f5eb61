package compare

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// KS is a two-sample Kolmogorov–Smirnov test.
type KS struct {
	// D is the largest distance between the two ECDFs (gonum's
	// stat.KolmogorovSmirnov).
	D float64
	// P is the asymptotic p-value of D: the Kolmogorov distribution's
	// survival function at λ = (√nₑ + 0.12 + 0.11/√nₑ)·D with
	// nₑ = n·m/(n+m) (Stephens' correction, close for nₑ ≥ 4). With ties
	// it is conservative.
	P float64
}

// KSTest runs the two-sample Kolmogorov–Smirnov test on two sorted samples.
// With an empty sample it returns D = NaN, P = NaN.
func KSTest(a, b []float64) KS {
	if len(a) == 0 || len(b) == 0 {
		return KS{D: math.NaN(), P: math.NaN()}
	}
	d := stat.KolmogorovSmirnov(a, nil, b, nil)
	n, m := float64(len(a)), float64(len(b))
	ne := n * m / (n + m)
	sq := math.Sqrt(ne)
	return KS{D: d, P: kolmogorovQ((sq + 0.12 + 0.11/sq) * d)}
}

// kolmogorovQ is the survival function of the Kolmogorov distribution,
// Q(λ) = P(K > λ) = 2 Σ_{k≥1} (−1)^{k−1} e^{−2k²λ²}; for small λ, where that
// series converges slowly, 1 − (√(2π)/λ) Σ_{k≥1} e^{−(2k−1)²π²/(8λ²)}.
func kolmogorovQ(lambda float64) float64 {
	switch {
	case math.IsNaN(lambda):
		return math.NaN()
	case lambda <= 0:
		return 1
	case lambda < 1.18:
		var s float64
		for k := 1; k <= 20; k++ {
			t := float64(2*k - 1)
			s += math.Exp(-t * t * math.Pi * math.Pi / (8 * lambda * lambda))
		}
		return math.Max(0, math.Min(1, 1-math.Sqrt(2*math.Pi)/lambda*s))
	}
	var s float64
	sign := 1.0
	for k := 1; k <= 100; k++ {
		term := math.Exp(-2 * float64(k*k) * lambda * lambda)
		s += sign * term
		if term < 1e-16 {
			break
		}
		sign = -sign
	}
	return math.Max(0, math.Min(1, 2*s))
}
