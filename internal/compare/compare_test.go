package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

func lognormal(r *rand.Rand, n int, mu, sigma float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Exp(mu + sigma*r.NormFloat64())
	}
	slices.Sort(v)
	return v
}

func scaled(x []float64, k float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * k
	}
	return out
}

func change(t *testing.T, r Result, s Stat) Change {
	t.Helper()
	for _, c := range r.Changes {
		if c.Stat == s {
			return c
		}
	}
	t.Fatalf("no change for %s in %+v", s, r)
	return Change{}
}

func TestCompareDetectsShift(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 1))
	base := lognormal(r, 5000, 6, 0.5)
	for _, tc := range []struct {
		name   string
		factor float64
		want   Verdict
	}{{"slower by 15%", 1.15, Worse}, {"faster by 15%", 0.85, Better}} {
		cand := scaled(lognormal(r, 5000, 6, 0.5), tc.factor)
		res, err := Compare(base, cand)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tc.want {
			t.Errorf("%s: verdict %q, want %q", tc.name, res.Verdict, tc.want)
		}
		if res.KS.P > 1e-6 {
			t.Errorf("%s: KS p = %g, want tiny for n=5000 and a 15%% shift", tc.name, res.KS.P)
		}
		// Every statistic of a scaled distribution moves by the factor: the
		// relative intervals of the central ones must cover it and lie on
		// the right side of zero.
		for _, s := range []Stat{"p50", "p90", "avg"} {
			c := change(t, res, s)
			if c.Verdict != tc.want {
				t.Errorf("%s %s: verdict %q, want %q (%+v)", tc.name, s, c.Verdict, tc.want, c)
			}
			if truth := tc.factor - 1; c.RelLo > truth || c.RelHi < truth {
				t.Errorf("%s %s: relative interval [%.4f, %.4f] misses the true change %.2f", tc.name, s, c.RelLo, c.RelHi, truth)
			}
			if !(c.Lo <= c.Delta && c.Delta <= c.Hi) {
				t.Errorf("%s %s: interval [%g, %g] does not contain the observed change %g", tc.name, s, c.Lo, c.Hi, c.Delta)
			}
		}
	}
}

func TestCompareMixed(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 2))
	base := lognormal(r, 8000, 6, 0.4)
	// Candidate: most requests faster (cache), 5% much slower (misses).
	cand := lognormal(r, 8000, 5.8, 0.4)
	for i := range cand {
		if i%20 == 0 {
			cand[i] *= 4
		}
	}
	slices.Sort(cand)
	res, err := Compare(base, cand)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Mixed {
		t.Errorf("verdict %q, want mixed: %+v", res.Verdict, res.Changes)
	}
	if v := change(t, res, "p50").Verdict; v != Better {
		t.Errorf("p50 verdict %q, want better", v)
	}
	if v := change(t, res, "p99").Verdict; v != Worse {
		t.Errorf("p99 verdict %q, want worse", v)
	}
}

// binomialUpper returns the smallest k with P(X > k) < tail for X ~ B(n, p).
func binomialUpper(n int, p, tail float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	for k := 0; k <= n; k++ {
		if 1-b.CDF(float64(k)) < tail {
			return k
		}
	}
	return n
}

// binomialLower returns the largest k with P(X < k) < tail.
func binomialLower(n int, p, tail float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	for k := n; k >= 0; k-- {
		if k == 0 || b.CDF(float64(k-1)) < tail {
			return k
		}
	}
	return 0
}

// TestCompareFalsePositiveRate compares two samples of the same distribution
// for 200 seeds. At α = 0.05 the overall verdict, the KS test and each
// statistic's own interval may each flag at most a binomial(200, 0.05) upper
// bound (P(exceed) < 0.001) of them; the intervals are also not so wide that
// they never flag (calibration: at least the lower bound).
func TestCompareFalsePositiveRate(t *testing.T) {
	t.Parallel()
	const seeds = 200
	upper := binomialUpper(seeds, 0.05, 0.001)
	lower := binomialLower(seeds, 0.05, 0.001)
	var overall, ks int
	perStat := map[Stat]int{}
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 99))
		base := lognormal(r, 2000, 6, 0.6)
		cand := lognormal(r, 2000, 6, 0.6)
		res, err := Compare(base, cand, Seed(seed+1))
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != NoChange {
			overall++
		}
		if res.KS.P < 0.05 {
			ks++
		}
		for _, c := range res.Changes {
			if c.Verdict == Worse || c.Verdict == Better {
				perStat[c.Stat]++
			}
		}
	}
	t.Logf("flagged of %d: overall %d, KS %d, per statistic %v (binomial bounds %d–%d)", seeds, overall, ks, perStat, lower, upper)
	if overall > upper {
		t.Errorf("overall verdict flagged %d of %d same-distribution pairs, more than %d", overall, seeds, upper)
	}
	if ks > upper {
		t.Errorf("KS flagged %d of %d, more than %d", ks, seeds, upper)
	}
	for _, s := range []Stat{"p50", "p90", "p95", "p99", "avg"} {
		if perStat[s] > upper || perStat[s] < lower {
			t.Errorf("%s's 95%% interval excluded 0 in %d of %d, want %d–%d", s, perStat[s], seeds, lower, upper)
		}
	}
}

// TestBootstrapMatchesResampling checks the order-statistic shortcut against
// a plain bootstrap that builds and sorts each resample.
func TestBootstrapMatchesResampling(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 3))
	x := lognormal(r, 300, 5, 0.8)
	const reps = 4000
	for _, s := range []Stat{"p50", "p90", "p99", "avg"} {
		fast := newResampler(x, s, rand.New(rand.NewPCG(4, 4)))
		var a, b []float64
		buf := make([]float64, len(x))
		for range reps {
			a = append(a, fast.draw())
			for i := range buf {
				buf[i] = x[r.IntN(len(x))]
			}
			slices.Sort(buf)
			b = append(b, value(buf, s))
		}
		ma, sa := stat.MeanStdDev(a, nil)
		mb, sb := stat.MeanStdDev(b, nil)
		if math.Abs(ma-mb) > 0.1*sb || math.Abs(sa-sb) > 0.1*sb {
			t.Errorf("%s: shortcut replicates mean %.4g sd %.4g, resampling mean %.4g sd %.4g", s, ma, sa, mb, sb)
		}
	}
}

func TestCompareTooFewAndEdges(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 5))
	res, err := Compare(lognormal(r, 150, 5, 0.5), lognormal(r, 3000, 5, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Changes {
		wantTooFew := c.Stat == "p99" || c.Stat == "p99.9"
		if (c.Verdict == TooFew) != wantTooFew {
			t.Errorf("n=150: %s verdict %q (MinN %d)", c.Stat, c.Verdict, c.Stat.MinN())
		}
	}
	same := []float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100}
	res, err = Compare(same, same, Stats("p50", "avg"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != NoChange || res.KS.D != 0 || res.KS.P != 1 {
		t.Errorf("identical constant runs: verdict %q, KS %+v", res.Verdict, res.KS)
	}
	res, err = Compare(same[:5], same[:5])
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != TooFew {
		t.Errorf("5 samples: verdict %q, want too few", res.Verdict)
	}
	for _, tc := range []struct {
		base, cand []float64
		opts       []Option
		want       string
	}{
		{nil, same, nil, "no samples in the baseline"},
		{same, []float64{2, 1}, nil, "candidate: samples are not sorted"},
		{same, same, []Option{Level(1)}, "confidence level 1"},
		{same, same, []Option{Resamples(10)}, "too few"},
	} {
		if _, err := Compare(tc.base, tc.cand, tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", err, tc.want)
		}
	}
}

func TestCompareReproducible(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(6, 6))
	a, b := lognormal(r, 1000, 5, 0.5), lognormal(r, 1000, 5.05, 0.5)
	r1, _ := Compare(a, b)
	r2, _ := Compare(a, b, Stats("p99", "p50"))
	c1, c2 := change(t, r1, "p50"), change(t, r2, "p50")
	if c1.Lo != c2.Lo || c1.Hi != c2.Hi {
		t.Errorf("p50 interval depends on the other statistics: %v–%v vs %v–%v", c1.Lo, c1.Hi, c2.Lo, c2.Hi)
	}
}
