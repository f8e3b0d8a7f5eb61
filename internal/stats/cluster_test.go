package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestWeightedPercentile: a rep's p(N) is Percentile of the pool it stands
// for (each value repeated by its cluster's weight), from either end.
func TestWeightedPercentile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		nv := 1 + rng.IntN(60)
		k := 1 + rng.IntN(8)
		values := make([]float64, nv)
		id := make([]int, nv)
		for i := range values {
			values[i] = math.Round(rng.NormFloat64()*100) / 10 // ties too
			id[i] = rng.IntN(k)
		}
		weight := make([]int, k)
		for c := range weight {
			weight[c] = rng.IntN(3)
		}
		var pool []float64
		for i, v := range values {
			for range weight[id[i]] {
				pool = append(pool, v)
			}
		}
		if len(pool) == 0 {
			continue
		}
		slices.Sort(pool)
		order := make([]int, nv)
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return values[order[a]] < values[order[b]] })
		desc := slices.Clone(order)
		slices.Reverse(desc)
		for _, n := range []float64{0, 1, 25, 50, 90, 99, 99.9, 100} {
			want, _ := Percentile(pool, n)
			up := weightedPercentile(values, order, id, weight, len(pool), n, false)
			down := weightedPercentile(values, desc, id, weight, len(pool), n, true)
			if math.Abs(up-want) > 1e-9 || math.Abs(down-want) > 1e-9 {
				t.Fatalf("trial %d p(%v) of %v: ascending walk %v, descending %v, want %v", trial, n, pool, up, down, want)
			}
		}
	}
}

// clustered draws k clusters of m values: a cluster's level L ~ Exp(mean
// level) shared by its values (a stretch of time a busy CPU delays together)
// plus each value's own Exp(mean own).
func clustered(rng *rand.Rand, k, m int, level, own float64) ([]float64, []int64) {
	var vs []float64
	var cs []int64
	for c := range k {
		l := rng.ExpFloat64() * level
		for range m {
			vs = append(vs, l+rng.ExpFloat64()*own)
			cs = append(cs, int64(c)*1e9)
		}
	}
	return vs, cs
}

// hypoexpQuantile is the q-quantile of Exp(mean a) + Exp(mean b), a ≠ b:
// its survival is (a·e^(−x/a) − b·e^(−x/b))/(a − b).
func hypoexpQuantile(q, a, b float64) float64 {
	lo, hi := 0.0, 100*(a+b)
	for range 200 {
		x := (lo + hi) / 2
		if (a*math.Exp(-x/a)-b*math.Exp(-x/b))/(a-b) > 1-q {
			lo = x
		} else {
			hi = x
		}
	}
	return (lo + hi) / 2
}

// TestClusterIntervalCoverage: on values that come in correlated clusters
// (400 stretches of 10 values; each stretch shares a delay), the clustered
// interval covers the true p99 at about its nominal 95% over many runs, and
// the order-statistic interval, which takes the 4,000 values as independent,
// far less often (measured: 0.905 and 0.545 over 200 runs).
func TestClusterIntervalCoverage(t *testing.T) {
	t.Parallel()
	const (
		runs          = 200
		k, m          = 400, 8
		level, own    = 0.5, 0.05
		reps          = 400
		conf          = 0.95
		minClustered  = 0.85
		maxOrderStats = 0.70
	)
	truth := hypoexpQuantile(0.99, level, own)
	var clusterHits, naiveHits int
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 42))
		vs, cs := clustered(rng, k, m, level, own)
		iv, err := ClusterQuantileInterval(vs, cs, 99, conf, reps, seed)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Clusters != k || !iv.Bounded() {
			t.Fatalf("seed %d: %+v", seed, iv)
		}
		if iv.Lo <= truth && truth <= iv.Hi {
			clusterHits++
		}
		sorted := slices.Clone(vs)
		slices.Sort(sorted)
		if n := QuantileInterval(sorted, 0.99, conf); n.Lo <= truth && truth <= n.Hi {
			naiveHits++
		}
	}
	cc, nc := float64(clusterHits)/runs, float64(naiveHits)/runs
	t.Logf("true p99 %.3f; coverage over %d runs: clustered %.3f, order statistics %.3f", truth, runs, cc, nc)
	if cc < minClustered {
		t.Errorf("clustered interval covered the true p99 in %.3f of runs, want ≥ %.2f", cc, minClustered)
	}
	if nc > maxOrderStats {
		t.Errorf("order-statistic interval covered it in %.3f of runs: the data are not clustered enough to tell the two apart", nc)
	}
}

// TestClusterIntervalIndependent: with every value its own cluster (no
// dependence) the clustered interval is about as wide as the order-statistic
// one, and it covers at about the nominal rate.
func TestClusterIntervalIndependent(t *testing.T) {
	t.Parallel()
	const runs = 150
	truth := -math.Log(0.01) // Exp(1)'s p99
	hits := 0
	var ratio float64
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 7))
		vs := make([]float64, 2000)
		cs := make([]int64, len(vs))
		for i := range vs {
			vs[i], cs[i] = rng.ExpFloat64(), int64(i)
		}
		iv, err := ClusterQuantileInterval(vs, cs, 99, 0.95, 400, seed)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Lo <= truth && truth <= iv.Hi {
			hits++
		}
		sorted := slices.Clone(vs)
		slices.Sort(sorted)
		n := QuantileInterval(sorted, 0.99, 0.95)
		ratio += (iv.Hi - iv.Lo) / (n.Hi - n.Lo) / runs
	}
	if c := float64(hits) / runs; c < 0.88 || c > 0.995 {
		t.Errorf("coverage %.3f on independent values, want about 0.95", c)
	}
	if ratio < 0.7 || ratio > 1.3 {
		t.Errorf("clustered/order-statistic width ratio %.2f on independent values, want about 1", ratio)
	}
}

// TestClusterIntervalEdges: same seed, same interval; too few clusters give
// an unbounded interval; bad input is named.
func TestClusterIntervalEdges(t *testing.T) {
	t.Parallel()
	vs, cs := clustered(rand.New(rand.NewPCG(1, 1)), 20, 30, 0.5, 0.1)
	a, _ := ClusterQuantileInterval(vs, cs, 99, 0.95, 200, 9)
	b, _ := ClusterQuantileInterval(vs, cs, 99, 0.95, 200, 9)
	if a != b || !a.Bounded() || a.Lo > a.Hi {
		t.Errorf("same seed: %+v and %+v", a, b)
	}
	few, err := ClusterQuantileInterval(vs[:30*(MinClusters-1)], cs[:30*(MinClusters-1)], 99, 0.95, 200, 9)
	if err != nil || few.Bounded() || few.Clusters != MinClusters-1 {
		t.Errorf("%d clusters: %+v, %v; want unbounded", MinClusters-1, few, err)
	}
	for _, c := range []struct {
		vs   []float64
		cs   []int64
		n    float64
		conf float64
		reps int
		want string
	}{
		{vs, cs[:1], 99, 0.95, 10, "cluster keys"},
		{vs, cs, 101, 0.95, 10, "percentile 101"},
		{vs, cs, 99, 1, 10, "confidence 1"},
		{vs, cs, 99, 0.95, 0, "0 bootstrap reps"},
		{[]float64{math.NaN()}, []int64{1}, 99, 0.95, 10, "value 0 is NaN"},
	} {
		if _, err := ClusterQuantileInterval(c.vs, c.cs, c.n, c.conf, c.reps, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
}
