package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// MinClusters is the fewest clusters ClusterQuantileInterval bounds a
// quantile with: with fewer, a bootstrap over clusters has too few distinct
// resamples to say anything, and the interval is (−Inf, +Inf).
const MinClusters = 10

// ClusterInterval is a bootstrap confidence interval for a quantile of values
// that come in correlated clusters (ClusterQuantileInterval). Lo and Hi are
// ±Inf when there were fewer than MinClusters clusters.
type ClusterInterval struct {
	Lo, Hi   float64
	Clusters int
	Reps     int
}

// Bounded reports whether both ends are finite.
func (iv ClusterInterval) Bounded() bool { return !math.IsInf(iv.Lo, 0) && !math.IsInf(iv.Hi, 0) }

// ClusterQuantileInterval is a percentile-bootstrap confidence interval for
// k6's p(N) (Percentile, N in percent) of values, resampling whole clusters:
// cluster[i] names the cluster of values[i]; each of reps resamples draws as
// many clusters as there are, with replacement, pools their values and takes
// p(N); the interval is the (1−confidence)/2 and (1+confidence)/2 quantiles
// of the reps' figures. seed fixes the draws.
//
// QuantileInterval's order statistics assume independent values. Values that
// share a cause — the events of one stretch of time that a GC pause or a busy
// CPU delays together — are not: they move together from run to run, and the
// order-statistic interval is then too narrow. Resampling whole clusters keeps
// that dependence, so the spread of the reps is the spread of runs (as far as
// the clusters are independent of each other).
func ClusterQuantileInterval(values []float64, cluster []int64, n, confidence float64, reps int, seed uint64) (ClusterInterval, error) {
	switch {
	case len(values) != len(cluster):
		return ClusterInterval{}, fmt.Errorf("stats: cluster interval: %d values but %d cluster keys", len(values), len(cluster))
	case !(n >= 0 && n <= 100):
		return ClusterInterval{}, fmt.Errorf("stats: cluster interval: percentile %v is outside [0, 100]", n)
	case !(confidence > 0 && confidence < 1):
		return ClusterInterval{}, fmt.Errorf("stats: cluster interval: confidence %v is outside (0, 1)", confidence)
	case reps < 1:
		return ClusterInterval{}, fmt.Errorf("stats: cluster interval: %d bootstrap reps, want at least 1", reps)
	}
	for i, v := range values {
		if math.IsNaN(v) {
			return ClusterInterval{}, fmt.Errorf("stats: cluster interval: value %d is NaN", i)
		}
	}
	index := map[int64]int{}
	var sizes []int
	id := make([]int, len(values))
	for i, c := range cluster {
		k, ok := index[c]
		if !ok {
			k = len(sizes)
			index[c] = k
			sizes = append(sizes, 0)
		}
		sizes[k]++
		id[i] = k
	}
	iv := ClusterInterval{Lo: math.Inf(-1), Hi: math.Inf(1), Clusters: len(sizes), Reps: reps}
	if len(sizes) < MinClusters {
		return iv, nil
	}
	// The values in one order, each with its cluster; a rep weighs each
	// cluster by how often it was drawn, and its p(N) is found by walking the
	// order from the nearer end (p(99) looks at about 1% of the values).
	order := make([]int, len(values))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return values[order[a]] < values[order[b]] })
	fromTop := n > 50
	if fromTop {
		slices.Reverse(order)
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	k := len(sizes)
	weight := make([]int, k)
	est := make([]float64, reps)
	for r := range reps {
		clear(weight)
		total := 0
		for range k {
			c := rng.IntN(k)
			weight[c]++
			total += sizes[c]
		}
		est[r] = weightedPercentile(values, order, id, weight, total, n, fromTop)
	}
	slices.Sort(est)
	alpha := 1 - confidence
	iv.Lo, _ = Percentile(est, 100*alpha/2)
	iv.Hi, _ = Percentile(est, 100*(1-alpha/2))
	return iv, nil
}

// weightedPercentile is k6's p(n) of the pool in which value i appears
// weight[id[i]] times (total in all), walking order (the values' indexes
// sorted ascending, or descending when fromTop) from its start.
func weightedPercentile(values []float64, order, id, weight []int, total int, n float64, fromTop bool) float64 {
	lo, f := Rank(total, n) // ascending 0-based ranks lo and lo+1 (when f > 0)
	a, b := lo, lo+1
	if f == 0 || total == 1 {
		b = lo
	}
	if fromTop { // the same ranks counted from the top
		a, b = total-1-a, total-1-b
	}
	near, far := min(a, b), max(a, b)
	var vNear, vFar float64
	seen := 0
	for _, i := range order {
		w := weight[id[i]]
		if w == 0 {
			continue
		}
		if seen <= near && near < seen+w {
			vNear = values[i]
		}
		if seen <= far && far < seen+w {
			vFar = values[i]
			break
		}
		seen += w
	}
	x, y := vNear, vFar // the values at ascending ranks lo and lo+1
	if a != near {
		x, y = vFar, vNear
	}
	return x + (y-x)*f
}
