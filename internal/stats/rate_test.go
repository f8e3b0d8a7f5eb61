package stats

import (
	"math"
	"testing"
)

// TestPoissonIntervalTable: the exact 95% limits of a Poisson mean as the
// standard tables give them (e.g. Garwood 1936; n = 0: [0, 3.689]).
func TestPoissonIntervalTable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n      int64
		lo, hi float64
	}{{0, 0, 3.689}, {1, 0.0253, 5.572}, {10, 4.795, 18.39}, {100, 81.36, 121.6}} {
		lo, hi := PoissonInterval(c.n, 0.95)
		if math.Abs(lo-c.lo) > 1e-3*math.Max(1, c.lo) || math.Abs(hi-c.hi) > 1e-3*c.hi {
			t.Errorf("n=%d: [%.4f, %.4f], table [%g, %g]", c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestCompoundPoissonInterval: with every amount 1 it is the normal
// interval of a Poisson count, n ± 1.96·√n.
func TestCompoundPoissonInterval(t *testing.T) {
	t.Parallel()
	lo, hi := CompoundPoissonInterval(100, 100, 0.95)
	if math.Abs(lo-(100-1.959964*10)) > 1e-4 || math.Abs(hi-(100+1.959964*10)) > 1e-4 {
		t.Errorf("[%g, %g]", lo, hi)
	}
}
