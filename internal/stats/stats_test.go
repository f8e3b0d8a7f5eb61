package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPercentileByHand(t *testing.T) {
	t.Parallel()
	x := []float64{10, 20, 30, 40}
	cases := []struct {
		n, want float64
	}{
		// i = (N/100)·(n−1) with n = 4; value = x[⌊i⌋] + (x[⌈i⌉]−x[⌊i⌋])·(i−⌊i⌋)
		{0, 10},       // i = 0
		{50, 25},      // i = 1.5: 20 + 10·0.5
		{90, 37},      // i = 2.7: 30 + 10·0.7
		{100, 40},     // i = 3
		{33.3, 19.99}, // i = 0.999: 10 + 10·0.999
	}
	for _, c := range cases {
		got, ok := Percentile(x, c.n)
		if !ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("p(%v) = %v, want %v", c.n, got, c.want)
		}
	}
	if v, ok := Percentile([]float64{7}, 99); !ok || v != 7 {
		t.Errorf("one value: %v %v", v, ok)
	}
	if v, ok := Percentile(nil, 50); ok || !math.IsNaN(v) {
		t.Errorf("empty: %v %v, want undefined", v, ok)
	}
	if _, ok := Percentile(x, 100.5); ok {
		t.Error("p(100.5) accepted")
	}
	if _, ok := Percentile(x, math.NaN()); ok {
		t.Error("p(NaN) accepted")
	}
}

// TestPercentileMatchesK6Formula checks the function against the formula written
// out independently, on random samples of many sizes.
func TestPercentileMatchesK6Formula(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 3000; n += 1 + n/7 {
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Exp(rng.NormFloat64())
		}
		slices.Sort(x)
		for _, p := range []float64{0, 1, 25, 50, 90, 95, 99, 99.5, 99.9, 99.99, 100} {
			// Independent: rank r = p(n−1)/100 split into integer and fraction.
			r := p / 100 * float64(n-1)
			lo := int(r)
			hi := lo
			if float64(lo) < r {
				hi = lo + 1
			}
			want := x[lo] + (x[hi]-x[lo])*(r-float64(lo))
			got, _ := Percentile(x, p)
			if math.Abs(got-want) > 1e-12*math.Abs(want) {
				t.Fatalf("n=%d p(%v): %v, want %v", n, p, got, want)
			}
		}
	}
}

func TestNearestRankByHand(t *testing.T) {
	t.Parallel()
	seq := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i + 1) // value = rank
		}
		return x
	}
	cases := []struct {
		count int
		p     float64
		rank  int
	}{
		{200, 99, 198},        // ⌈0.99·200⌉ = 198 exactly (a float product could give 198.00000000000003 → 199)
		{10, 90, 9},           // ⌈9⌉
		{10, 95, 10},          // ⌈9.5⌉
		{10, 0, 1},            // N = 0: the smallest, by convention
		{10, 100, 10},         // the largest
		{1000, 99.9, 999},     // ⌈999⌉
		{1001, 99.9, 1000},    // ⌈999.999⌉
		{20000, 99.99, 19998}, // ⌈19998⌉
		{3, 50, 2},            // ⌈1.5⌉
		{1, 99.99, 1},
	}
	for _, c := range cases {
		v, rank, ok := NearestRank(seq(c.count), c.p)
		if !ok || rank != c.rank || v != float64(c.rank) {
			t.Errorf("n=%d p(%v): rank %d value %v, want %d", c.count, c.p, rank, v, c.rank)
		}
	}
	if _, _, ok := NearestRank(nil, 50); ok {
		t.Error("empty sample has a nearest rank")
	}
}

func TestMinSamples(t *testing.T) {
	t.Parallel()
	// ⌈2/(1 − N/100)⌉: 2/0.01 = 200, 2/0.001 = 2000, 2/0.0001 = 20000,
	// 2/0.1 = 20, 2/0.05 = 40, 2/0.5 = 4, 2/0.25 = 8.
	for p, want := range map[float64]int{99: 200, 99.9: 2000, 99.99: 20000, 90: 20, 95: 40, 50: 4, 75: 8, 100: 0, 0: 2} {
		if got := MinSamples(p, 2); got != want {
			t.Errorf("MinSamples(%v) = %d, want %d", p, got, want)
		}
	}
}

// TestIntervalRanksByHand checks the binomial ranks against values worked out
// with exact fractions. F(k) = P(B ≤ k), B ~ Binomial(n, q); lo is the smallest k
// with F(k) > 0.025, hi is 1 + the smallest m with F(m) ≥ 0.975, and the
// coverage is F(hi−1) − F(lo−1).
func TestIntervalRanksByHand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n      int
		q      float64
		lo, hi int
		cov    float64
	}{
		// n=10, q=1/2: F(k) = Σ C(10,j)/1024. F(1) = 11/1024 = 0.0107 ≤ 0.025 <
		// F(2) = 56/1024 = 0.0547 → lo = 2. F(7) = 968/1024 = 0.9453 < 0.975 ≤
		// F(8) = 1013/1024 = 0.9893 → hi = 9. Coverage (1013 − 11)/1024.
		{10, 0.5, 2, 9, 1002.0 / 1024},
		// n=6, q=1/2: F(0) = 1/64 ≤ 0.025 < F(1) = 7/64 → lo = 1; F(4) = 57/64 <
		// 0.975 ≤ F(5) = 63/64 → hi = 6. Coverage (63 − 1)/64: the classic
		// [min, max] interval for the median of six.
		{6, 0.5, 1, 6, 62.0 / 64},
		// n=5, q=1/2: F(0) = 1/32 = 0.03125 > 0.025 → lo = 0 (no lower bound);
		// F(4) = 31/32 = 0.96875 < 0.975 → hi = 6 = n+1 (no upper bound).
		{5, 0.5, 0, 6, 1},
		// n=20, q=0.9: F(14) = 0.01125 ≤ 0.025 < F(15) = 0.04317 → lo = 15;
		// F(19) = 1 − 0.9^20 = 0.8784 < 0.975 → hi = 21 (unbounded).
		// Coverage 1 − F(14) = 0.988746865835491.
		{20, 0.9, 15, 21, 0.988746865835491},
		// n=100, q=0.9: F(82) = 0.02060 ≤ 0.025 < F(83) = 0.03989 → lo = 84;
		// F(94) = 0.94242 < 0.975 ≤ F(95) = 0.97629 → hi = 96.
		// Coverage F(95) − F(83) = 0.955690107191223.
		{100, 0.9, 84, 96, 0.955690107191223},
		// n=400, q=0.99: F(390) = 0.02077 < 0.025 < F(391) = 0.05024 → lo = 392;
		// F(398) = 0.90952 < 0.975 ≤ F(399) = 1 − 0.99^400 = 0.98205 → hi = 400.
		{400, 0.99, 392, 400, 0.961280887066518},
	}
	for _, c := range cases {
		lo, hi, cov := IntervalRanks(c.n, c.q, 0.95)
		if lo != c.lo || hi != c.hi || math.Abs(cov-c.cov) > 1e-9 {
			t.Errorf("n=%d q=%v: ranks [%d, %d] coverage %.12f, want [%d, %d] %.12f", c.n, c.q, lo, hi, cov, c.lo, c.hi, c.cov)
		}
	}
}

// TestIntervalRanksLargeN compares the exact ranks with the normal
// approximation nq ± 1.96·√(nq(1−q)), which is very good at these sizes.
func TestIntervalRanksLargeN(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n int
		q float64
	}{{1_000_000, 0.5}, {1_000_000, 0.99}, {10_000_000, 0.999}, {100_000_000, 0.9999}, {2_000_000_000, 0.9999}} {
		lo, hi, cov := IntervalRanks(c.n, c.q, 0.95)
		mu := float64(c.n) * c.q
		sd := math.Sqrt(mu * (1 - c.q))
		wantLo, wantHi := mu-1.959964*sd, mu+1.959964*sd+1
		if math.Abs(float64(lo)-wantLo) > 3+0.02*sd || math.Abs(float64(hi)-wantHi) > 3+0.02*sd || cov < 0.95 || cov > 0.96 {
			t.Errorf("n=%d q=%v: [%d, %d] coverage %v; normal approximation [%.1f, %.1f]", c.n, c.q, lo, hi, cov, wantLo, wantHi)
		}
	}
}

// TestIntervalCoverageSimulated draws samples from a known distribution and
// counts how often the interval holds the true quantile: about 95% (at least the
// exact coverage less sampling noise).
func TestIntervalCoverageSimulated(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	const trials = 2000
	for _, c := range []struct {
		n int
		q float64
	}{{50, 0.5}, {500, 0.9}, {1000, 0.99}} {
		trueQ := c.q // Uniform(0,1): the q-quantile is q
		hits := 0
		_, _, cov := IntervalRanks(c.n, c.q, 0.95)
		x := make([]float64, c.n)
		for range trials {
			for i := range x {
				x[i] = rng.Float64()
			}
			slices.Sort(x)
			iv := QuantileInterval(x, c.q, 0.95)
			if iv.Lo <= trueQ && trueQ <= iv.Hi {
				hits++
			}
		}
		got := float64(hits) / trials
		// Binomial noise of a proportion near 0.96 over 2000 trials: sd ≈ 0.0044.
		if math.Abs(got-cov) > 0.025 {
			t.Errorf("n=%d q=%v: covered %.3f of trials, exact coverage %.3f", c.n, c.q, got, cov)
		}
	}
}

func TestQuantileIntervalUnbounded(t *testing.T) {
	t.Parallel()
	x := []float64{1, 2, 3, 4, 5}
	iv := QuantileInterval(x, 0.5, 0.95)
	if iv.Bounded() || !math.IsInf(iv.Lo, -1) || !math.IsInf(iv.Hi, 1) {
		t.Errorf("median of 5: %+v, want unbounded on both sides", iv)
	}
	iv = QuantileInterval(make([]float64, 100), 0.999, 0.95)
	if iv.Bounded() || !math.IsInf(iv.Hi, 1) || iv.LoRank < 90 {
		t.Errorf("p99.9 of 100: %+v, want a lower bound only", iv)
	}
	if lo, hi, cov := IntervalRanks(0, 0.5, 0.95); lo != 0 || hi != 1 || cov != 1 {
		t.Errorf("n=0: %d %d %v", lo, hi, cov)
	}
	for _, q := range []float64{0, 1} {
		lo, hi, cov := IntervalRanks(10, q, 0.95)
		if cov != 1 || lo > hi {
			t.Errorf("q=%v: [%d, %d] %v", q, lo, hi, cov)
		}
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	var v Values
	rng := rand.New(rand.NewPCG(3, 4))
	want := make([]float64, 0, 3*chunkLen+5)
	for range 3*chunkLen + 5 {
		x := rng.Float64()
		v.Add(x)
		want = append(want, x)
	}
	if v.Len() != len(want) {
		t.Fatalf("Len %d", v.Len())
	}
	got := v.Sorted()
	slices.Sort(want)
	if !slices.Equal(got, want) || v.Len() != 0 {
		t.Fatal("Sorted differs")
	}
	var empty Values
	if s := empty.Sorted(); len(s) != 0 {
		t.Fatal("empty")
	}
	// A small group does not take a whole block.
	var small Values
	for i := range 20 {
		small.Add(float64(i))
	}
	if len(small.chunks) != 1 || cap(small.chunks[0]) > 32 {
		t.Errorf("20 values take %d blocks, capacity %d", len(small.chunks), cap(small.chunks[0]))
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(i + 1)
	}
	s := Summarize(x, DefaultOptions())
	if s.Count != 1000 || s.Min != 1 || s.Max != 1000 || s.Mean != 500.5 || len(s.Percentiles) != 6 {
		t.Fatalf("%+v", s)
	}
	p99 := s.Percentiles[3]
	// p(99): i = 0.99·999 = 989.01 → 990 + 0.01 = 990.01; nearest rank ⌈990⌉ = 990.
	if p99.Name != "p(99)" || math.Abs(p99.Value-990.01) > 1e-9 || p99.Rank != 990 || p99.NearestRank != 990 || p99.TooFew {
		t.Errorf("p99 %+v", p99)
	}
	if !p99.CI.Bounded() || p99.CI.Lo > 990 || p99.CI.Hi < 990 || p99.Wide {
		t.Errorf("p99 CI %+v rel %v", p99.CI, p99.RelWidth)
	}
	p999 := s.Percentiles[4]
	if !p999.TooFew || p999.MinSamples != 2000 || !p999.Wide || !math.IsInf(p999.RelWidth, 1) {
		t.Errorf("p99.9 of 1000 must be flagged: %+v", p999)
	}
	e := Summarize(nil, DefaultOptions())
	if e.Count != 0 || !math.IsNaN(e.Mean) || len(e.Percentiles) != 0 {
		t.Errorf("empty %+v", e)
	}
}

// ClosedIntervalN is the first n whose interval is closed, by IntervalRanks.
func TestClosedIntervalN(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ q, conf float64 }{{0.5, 0.95}, {0.9, 0.95}, {0.99, 0.95}, {0.999, 0.99}, {0.01, 0.95}, {0.95, 0.9}} {
		n := ClosedIntervalN(c.q, c.conf)
		for m := 1; m <= n; m++ {
			lo, hi, _ := IntervalRanks(m, c.q, c.conf)
			if closed := lo >= 1 && hi <= m; closed != (m == n) && (m < n || !closed) {
				t.Errorf("q %v conf %v: ClosedIntervalN %d, but at %d the ranks are %d, %d", c.q, c.conf, n, m, lo, hi)
			}
		}
	}
	if n := ClosedIntervalN(0.99, 0.95); n != 368 { // 0.99^368 = 0.02476 ≤ 0.025 < 0.99^367 = 0.02501
		t.Errorf("p(99) at 95%%: %d, want 368", n)
	}
	if ClosedIntervalN(1, 0.95) != 0 || ClosedIntervalN(0, 0.95) != 0 {
		t.Error("q 0 or 1 has no closed interval")
	}
}

// TestPercentileUnevenGaps holds the cases of the k6 side's former copy of
// the rule (internal/percentile), on values with uneven gaps.
func TestPercentileUnevenGaps(t *testing.T) {
	t.Parallel()
	x := []float64{1, 2, 3, 4, 10}
	for _, c := range []struct{ n, want float64 }{
		{0, 1}, {50, 3}, {100, 10}, {25, 2}, {90, 7.6}, {95, 8.8}, {99, 9.76}, {12.5, 1.5},
	} {
		if got, ok := Percentile(x, c.n); !ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("p(%v) of %v = %v, want %v", c.n, x, got, c.want)
		}
	}
}

// TestRank checks the rank Percentile and the bootstrap share: ⌊i⌋ and
// i − ⌊i⌋ for i = (N/100)·(count−1).
func TestRank(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		count int
		n     float64
		lo    int
		frac  float64
	}{
		{4, 50, 1, 0.5}, {4, 90, 2, 0.7}, {4, 100, 3, 0}, {4, 0, 0, 0}, {1, 99, 0, 0}, {5, 99, 3, 0.96}, {101, 99, 99, 0},
	} {
		lo, frac := Rank(c.count, c.n)
		if lo != c.lo || math.Abs(frac-c.frac) > 1e-12 {
			t.Errorf("Rank(%d, %v) = %d, %v; want %d, %v", c.count, c.n, lo, frac, c.lo, c.frac)
		}
	}
}
