package plot

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot/plotter"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// DefaultPoints is the default number of rank-grid points kept per ECDF curve
// (see [ReduceECDF]): more than the pixel height of any figure drawn here, so
// the reduced curve is within a fraction of a pixel of the full one.
const DefaultPoints = 2048

// ErrNoData is returned when a curve has no samples to draw.
var ErrNoData = errors.New("plot: no data")

// ReduceECDF returns the corners of the empirical CDF of sorted, to be drawn as a
// post-step line (horizontal, then vertical): the first corner is (min, 0), then
// each kept sample x with its exact height F(x) = #{v ≤ x}/n.
//
// With n samples and n > k, it keeps the samples at ranks ⌊j·n/k⌋ (0-based,
// j = 0…k−1), the largest sample, and the values in extra that lie within
// [min, max] (e.g. the marked percentiles, so their markers meet the curve).
// Between two kept samples at ranks a < b ≤ a+⌈n/k⌉ the reduced curve is F at
// rank a while the true ECDF is at most b/n, so for every x
//
//	0 ≤ F(x) − G(x) ≤ (⌈n/k⌉ − 1)/n < 1/k.
//
// With n ≤ k every distinct sample is kept and the curve is exact.
//
// sorted must be in ascending order and contain no NaN; otherwise an error
// says which index is wrong. k < 1 means [DefaultPoints].
func ReduceECDF(sorted []float64, k int, extra ...float64) (plotter.XYs, error) {
	n := len(sorted)
	if n == 0 {
		return nil, ErrNoData
	}
	if err := stats.CheckSorted(sorted); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	if k < 1 {
		k = DefaultPoints
	}
	// upper returns the index one past the run of values equal to sorted[i].
	upper := func(i int) int {
		v := sorted[i]
		return i + sort.Search(n-i, func(j int) bool { return sorted[i+j] > v })
	}
	pts := make(plotter.XYs, 0, min(n, k)+2+len(extra))
	pts = append(pts, plotter.XY{X: sorted[0], Y: 0})
	add := func(i int) {
		u := upper(i)
		x := sorted[i]
		if last := &pts[len(pts)-1]; last.X == x && last.Y > 0 {
			return // same tie run as the previous kept point
		}
		pts = append(pts, plotter.XY{X: x, Y: float64(u) / float64(n)})
	}
	if n <= k {
		for i := 0; i < n; i = upper(i) {
			add(i)
		}
	} else {
		for j := range k {
			add(int(int64(j) * int64(n) / int64(k)))
		}
		add(n - 1)
	}
	var more plotter.XYs
	for _, v := range extra {
		if math.IsNaN(v) || v < sorted[0] || v > sorted[n-1] {
			continue
		}
		c := sort.Search(n, func(i int) bool { return sorted[i] > v })
		more = append(more, plotter.XY{X: v, Y: float64(c) / float64(n)})
	}
	if len(more) == 0 {
		return pts, nil
	}
	pts = append(pts, more...)
	// (min, 0) must stay first: it has the smallest X and the smallest Y.
	slices.SortStableFunc(pts[1:], func(a, b plotter.XY) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	out := pts[:1]
	for _, p := range pts[1:] {
		if last := &out[len(out)-1]; last.X == p.X && last.Y > 0 {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// ecdfAt returns the height of the post-step curve pts at x: the Y of the last
// corner whose X ≤ x, 0 before the first.
func ecdfAt(pts plotter.XYs, x float64) float64 {
	i := sort.Search(len(pts), func(i int) bool { return pts[i].X > x })
	if i == 0 {
		return 0
	}
	return pts[i-1].Y
}
