package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestKolmogorovQ(t *testing.T) {
	t.Parallel()
	// Critical values of the Kolmogorov distribution (tables of K_α).
	for _, tc := range []struct{ lambda, q float64 }{
		{1.0727, 0.20}, {1.2238, 0.10}, {1.3581, 0.05}, {1.4802, 0.025}, {1.6276, 0.01}, {1.9495, 0.001},
		{0.5, 0.9639}, {0, 1}, {5, 0},
	} {
		if got := kolmogorovQ(tc.lambda); math.Abs(got-tc.q) > 5e-4 {
			t.Errorf("Q(%g) = %.5f, want %.4f", tc.lambda, got, tc.q)
		}
	}
	// The two series agree where they meet.
	const l = 1.18
	var alt float64
	for k := 1; k <= 20; k++ {
		alt += 2 * math.Pow(-1, float64(k-1)) * math.Exp(-2*float64(k*k)*l*l)
	}
	if d := math.Abs(kolmogorovQ(l-1e-12) - alt); d > 1e-9 {
		t.Errorf("the two forms of Q differ by %g at λ=1.18", d)
	}
}

// bruteKS is the largest ECDF distance evaluated at every sample value.
func bruteKS(a, b []float64) float64 {
	cdf := func(x []float64, v float64) float64 {
		i, _ := slices.BinarySearch(x, math.Nextafter(v, math.Inf(1)))
		return float64(i) / float64(len(x))
	}
	var d float64
	for _, v := range append(slices.Clone(a), b...) {
		d = max(d, math.Abs(cdf(a, v)-cdf(b, v)))
	}
	return d
}

func TestKSStatistic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		n, m := 1+r.IntN(30), 1+r.IntN(30)
		a, b := make([]float64, n), make([]float64, m)
		for i := range a {
			a[i] = float64(r.IntN(10)) // ties on purpose
		}
		for i := range b {
			b[i] = float64(r.IntN(12))
		}
		slices.Sort(a)
		slices.Sort(b)
		if got, want := KSTest(a, b).D, bruteKS(a, b); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: D = %g, brute force %g (a=%v b=%v)", trial, got, want, a, b)
		}
	}
	if ks := KSTest(nil, []float64{1}); !math.IsNaN(ks.D) || !math.IsNaN(ks.P) {
		t.Errorf("empty sample: %+v, want NaN", ks)
	}
}
