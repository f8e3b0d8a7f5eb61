package plot

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// lognormal returns n sorted samples of exp(mu + sigma·Z) from a fixed seed.
func lognormal(seed uint64, n int, mu, sigma float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Exp(mu + sigma*r.NormFloat64())
	}
	slices.Sort(v)
	return v
}

// supDistance returns max over x of F(x) − G(x) and min over x of the same,
// where F is the exact ECDF of sorted and G the reduced post-step curve. Both
// are right-continuous step functions; F jumps only at samples and G only at
// its corners, which are samples or extra values where G rises to F, so the
// extremes of F − G are reached at samples or corners.
func supDistance(sorted []float64, pts XYs) (maxDiff, minDiff float64) {
	n := len(sorted)
	maxDiff, minDiff = math.Inf(-1), math.Inf(1)
	check := func(x, f float64) {
		d := f - ecdfAt(pts, x)
		maxDiff = max(maxDiff, d)
		minDiff = min(minDiff, d)
	}
	for i := 0; i < n; {
		j := i
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		check(sorted[i], float64(j)/float64(n))
		i = j
	}
	for _, p := range pts {
		c, _ := slices.BinarySearch(sorted, math.Nextafter(p.X, math.Inf(1)))
		check(p.X, float64(c)/float64(n))
	}
	return maxDiff, minDiff
}

func TestReduceECDFWithinOneOverK(t *testing.T) {
	t.Parallel()
	smooth := lognormal(1, 1_000_000, 6, 0.8)
	// Values rounded to whole milliseconds: long tie runs.
	ties := make([]float64, len(smooth))
	for i, v := range smooth {
		ties[i] = math.Round(v)
	}
	// A cap: 5% of the values equal to the limit.
	capped := slices.Clone(smooth)
	limit := capped[len(capped)*95/100]
	for i := range capped {
		capped[i] = min(capped[i], limit)
	}
	for _, tc := range []struct {
		name   string
		sorted []float64
	}{{"smooth", smooth}, {"ties", ties}, {"capped", capped}} {
		for _, k := range []int{100, 1000, DefaultPoints} {
			extra := []float64{tc.sorted[len(tc.sorted)/2] + 0.25, tc.sorted[len(tc.sorted)*99/100] - 0.1}
			pts, err := ReduceECDF(tc.sorted, k, extra...)
			if err != nil {
				t.Fatal(err)
			}
			if len(pts) > k+2+len(extra) {
				t.Errorf("%s k=%d: %d corners, want at most %d", tc.name, k, len(pts), k+2+len(extra))
			}
			hi, lo := supDistance(tc.sorted, pts)
			if lo < 0 {
				t.Errorf("%s k=%d: reduced curve is above the ECDF by %g", tc.name, k, -lo)
			}
			if hi >= 1/float64(k) {
				t.Errorf("%s k=%d: sup distance %g, want < 1/k = %g", tc.name, k, hi, 1/float64(k))
			}
			if pts[0].Y != 0 || pts[len(pts)-1].Y != 1 || pts[len(pts)-1].X != tc.sorted[len(tc.sorted)-1] {
				t.Errorf("%s k=%d: curve runs from %v to %v, want from (min, 0) to (max, 1)", tc.name, k, pts[0], pts[len(pts)-1])
			}
			for _, v := range extra {
				if _, ok := slices.BinarySearchFunc(pts, v, func(p plotter.XY, v float64) int { return cmpFloat(p.X, v) }); !ok {
					t.Errorf("%s k=%d: extra value %g is not a corner", tc.name, k, v)
				}
			}
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestReduceECDFSmallIsExact(t *testing.T) {
	t.Parallel()
	// Worked by hand: 5 samples, 2 tied.
	got, err := ReduceECDF([]float64{1, 2, 2, 3, 10}, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := XYs{{X: 1, Y: 0}, {X: 1, Y: 0.2}, {X: 2, Y: 0.6}, {X: 3, Y: 0.8}, {X: 10, Y: 1}}
	if !slices.Equal(got, want) {
		t.Errorf("ReduceECDF = %v, want %v", got, want)
	}
	one, err := ReduceECDF([]float64{42}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := (XYs{{X: 42, Y: 0}, {X: 42, Y: 1}}); !slices.Equal(one, want) {
		t.Errorf("one sample: %v, want %v", one, want)
	}
}

func TestReduceECDFBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   []float64
		want string
	}{
		{"empty", nil, "no data"},
		{"unsorted", []float64{1, 3, 2}, "sample 2 (2) is less than sample 1 (3)"},
		{"nan", []float64{1, math.NaN()}, "sample 1 is NaN"},
	} {
		_, err := ReduceECDF(tc.in, 10)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func BenchmarkReduceECDF(b *testing.B) {
	v := lognormal(3, 1_000_000, 6, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReduceECDF(v, DefaultPoints); err != nil {
			b.Fatal(err)
		}
	}
}
