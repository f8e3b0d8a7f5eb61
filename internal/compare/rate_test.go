package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestNewcombeInterval checks the interval against the eight worked examples
// of Newcombe (1998), "Interval estimation for the difference between
// independent proportions", Statistics in Medicine 17, Table II, method 10
// (to the four decimals printed there), and the Wilson interval against
// values worked out by hand.
func TestNewcombeInterval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		x1, n1, x2, n2 int64 // p1 = x1/n1 (the candidate) − p2 = x2/n2 (the baseline)
		lo, hi         float64
	}{
		{56, 70, 48, 80, 0.0524, 0.3339},
		{9, 10, 3, 10, 0.1705, 0.8090},
		{6, 7, 2, 7, 0.0582, 0.8062},
		{5, 56, 0, 29, -0.0381, 0.1926},
		{0, 10, 0, 20, -0.1611, 0.2775},
		{0, 10, 0, 10, -0.2775, 0.2775},
		{10, 10, 0, 20, 0.6791, 1.0000},
		{10, 10, 0, 10, 0.6075, 1.0000},
	} {
		lo, hi := NewcombeInterval(Proportion{tc.x2, tc.n2}, Proportion{tc.x1, tc.n1}, 0.95)
		if math.Abs(lo-tc.lo) > 0.00005 || math.Abs(hi-tc.hi) > 0.00005 {
			t.Errorf("%d/%d − %d/%d: [%.4f, %.4f], want [%.4f, %.4f]", tc.x1, tc.n1, tc.x2, tc.n2, lo, hi, tc.lo, tc.hi)
		}
	}
	// Wilson, 0 of 10 at 95%: z = 1.959964, z²/n = 0.384146;
	// centre = (z²/2n)/(1 + z²/n) = 0.138771 = half-width, so [0, 0.277533].
	if lo, hi := WilsonInterval(Proportion{0, 10}, 0.95); lo != 0 || math.Abs(hi-0.277533) > 1e-6 {
		t.Errorf("Wilson 0/10: [%g, %g], want [0, 0.277533]", lo, hi)
	}
	if lo, hi := WilsonInterval(Proportion{10, 10}, 0.95); hi != 1 || math.Abs(lo-(1-0.277533)) > 1e-6 {
		t.Errorf("Wilson 10/10: [%g, %g], want [0.722467, 1]", lo, hi)
	}
}

func TestCompareRatesVerdicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		base, cand Proportion
		lower      bool
		want       Verdict
	}{
		{"failures 2% → 6%", Proportion{40, 2000}, Proportion{120, 2000}, true, Worse},
		{"failures 6% → 2%", Proportion{120, 2000}, Proportion{40, 2000}, true, Better},
		{"SLO met 98% → 94%", Proportion{1960, 2000}, Proportion{1880, 2000}, false, Worse},
		{"SLO met 94% → 98%", Proportion{1880, 2000}, Proportion{1960, 2000}, false, Better},
		{"failures 3.3% → 3.5% of ~600", Proportion{21, 638}, Proportion{22, 622}, true, NoChange},
		{"no failures either side", Proportion{0, 500}, Proportion{0, 500}, true, NoChange},
	} {
		c, err := CompareRates(tc.base, tc.cand, 0.95, tc.lower)
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != tc.want {
			t.Errorf("%s: verdict %q, want %q (%+v)", tc.name, c.Verdict, tc.want, c)
		}
		if !(c.Lo <= c.Delta && c.Delta <= c.Hi) {
			t.Errorf("%s: interval [%g, %g] does not hold the change %g", tc.name, c.Lo, c.Hi, c.Delta)
		}
		if (c.Verdict == Worse) != (c.Worsening() > 0) {
			t.Errorf("%s: verdict %q but worsening bound %g", tc.name, c.Verdict, c.Worsening())
		}
	}
	for _, bad := range []struct {
		base, cand Proportion
		level      float64
		want       string
	}{
		{Proportion{0, 0}, Proportion{1, 10}, 0.95, "no samples in the baseline"},
		{Proportion{1, 10}, Proportion{0, 0}, 0.95, "no samples in the candidate"},
		{Proportion{11, 10}, Proportion{1, 10}, 0.95, "11 non-zero samples of 10"},
		{Proportion{1, 10}, Proportion{1, 10}, 1, "not in (0, 1)"},
	} {
		if _, err := CompareRates(bad.base, bad.cand, bad.level, true); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("CompareRates(%+v, %+v, %g): error %v, want %q", bad.base, bad.cand, bad.level, err, bad.want)
		}
	}
}

// TestCompareRatesFalsePositiveRate draws both runs' failures from the same
// rate for 500 seeds: the 95% interval may exclude 0 at most a binomial(500,
// 0.05) upper bound of times (exceeded with probability < 0.001), and must
// not be so wide that it never does. A doubled rate is detected nearly always.
func TestCompareRatesFalsePositiveRate(t *testing.T) {
	t.Parallel()
	const seeds = 500
	upper := binomialUpper(seeds, 0.05, 0.001)
	lower := binomialLower(seeds, 0.05, 0.001)
	draw := func(r *rand.Rand, n int64, p float64) Proportion {
		b := distuv.Binomial{N: float64(n), P: p, Src: r}
		return Proportion{NonZero: int64(b.Rand()), Count: n}
	}
	flagged, detected := 0, 0
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 31))
		c, err := CompareRates(draw(r, 1000, 0.03), draw(r, 1200, 0.03), 0.95, true)
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != NoChange {
			flagged++
		}
		c, err = CompareRates(draw(r, 2000, 0.03), draw(r, 2000, 0.06), 0.95, true)
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict == Worse {
			detected++
		}
	}
	t.Logf("same rate flagged in %d of %d (bounds %d–%d); 3%% → 6%% detected in %d", flagged, seeds, lower, upper, detected)
	if flagged > upper || flagged < lower {
		t.Errorf("same rate: the interval excluded 0 in %d of %d, want %d–%d", flagged, seeds, lower, upper)
	}
	if detected < seeds*95/100 {
		t.Errorf("3%% → 6%% of 2,000 requests detected in only %d of %d", detected, seeds)
	}
}

func TestRateLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want RegressionLimit
		back string
	}{
		{"llm_requests_failed:rate=+1pp", RegressionLimit{Metric: "llm_requests_failed", Stat: RateStat, Max: 0.01}, "llm_requests_failed:rate=1pp"},
		{"rate=0.5pp", RegressionLimit{Stat: RateStat, Max: 0.005}, "rate=0.5pp"},
		{"p99=+10%", RegressionLimit{Stat: "p99", Max: 0.10, Relative: true}, "p99=10%"},
	} {
		got, err := ParseLimit(tc.in)
		if err != nil || got != tc.want || got.String() != tc.back {
			t.Errorf("ParseLimit(%q) = %+v (%q), %v; want %+v (%q)", tc.in, got, got.String(), err, tc.want, tc.back)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"rate=1%", "percentage points"},
		{"rate=5ms", "percentage points"},
		{"p99=1pp", "apply to a Rate's rate"},
		{"rate=-1pp", "must not be negative"},
	} {
		if _, err := ParseLimit(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.in) {
			t.Errorf("ParseLimit(%q): error %v, want one naming the input and containing %q", tc.in, err, tc.want)
		}
	}
	// A failure rate from 2% to 6% of 2,000 is worse by more than 1pp with
	// confidence (interval ≈ +2.8 … +5.2pp), not by more than 5pp; a success
	// rate is judged the other way round.
	fail, _ := CompareRates(Proportion{40, 2000}, Proportion{120, 2000}, 0.95, true)
	slo, _ := CompareRates(Proportion{1960, 2000}, Proportion{1880, 2000}, 0.95, false)
	better, _ := CompareRates(Proportion{120, 2000}, Proportion{40, 2000}, 0.95, true)
	for _, tc := range []struct {
		c     RateChange
		limit string
		want  bool
	}{
		{fail, "rate=1pp", true}, {fail, "rate=5pp", false}, {slo, "rate=1pp", true}, {slo, "rate=5pp", false},
		{better, "rate=0pp", false},
	} {
		l, _ := ParseLimit(tc.limit)
		if got := l.ExceededRate(tc.c); got != tc.want {
			t.Errorf("%+v with %s: exceeded %v, want %v", tc.c, tc.limit, got, tc.want)
		}
	}
	if _, err := Compare([]float64{1, 2, 3}, []float64{1, 2, 3}, Stats(RateStat)); err == nil {
		t.Error("Compare accepted the rate statistic")
	}
}
