package histogram

import (
	"math"
	"sync"
	"testing"
	"time"
)

// Every value lies in its bucket, and its bucket's upper bound is at most
// 1/32 above it (the cases of the mock's former histogram test).
func TestBuckets(t *testing.T) {
	t.Parallel()
	check := func(v int64) {
		i := Index(v)
		if i < 0 || i >= Buckets || Upper(i) < v || (i > 0 && Upper(i-1) >= v) {
			t.Fatalf("value %d in bucket %d [.., %d], previous ends %d", v, i, Upper(i), Upper(max(i-1, 0)))
		}
		if v > 0 && float64(Upper(i)-v) > float64(v)/32 {
			t.Fatalf("value %d: bucket %d ends at %d, more than 1/32 above", v, i, Upper(i))
		}
	}
	for v := int64(0); v < 1<<20; v += 7 {
		check(v)
	}
	for e := 20; e < 63; e++ {
		for _, v := range []int64{1<<e - 1, 1 << e, 1<<e + 1, 3 << (e - 1)} {
			check(v)
		}
	}
	check(math.MaxInt64)
	if Index(math.MaxInt64) != Buckets-1 || Upper(Buckets-1) != math.MaxInt64 {
		t.Errorf("last bucket %d (of %d) ends at %d", Index(math.MaxInt64), Buckets, Upper(Buckets-1))
	}
}

// Quantiles of 1 µs … 100 ms, uniform: each within +3.2 % of the true value
// (the helper's former 8 buckets per doubling allowed +9 %, the mock's test
// +4 %).
func TestQuantiles(t *testing.T) {
	t.Parallel()
	var h Histogram
	for v := int64(1); v <= 100000; v++ {
		h.Add(time.Duration(v) * time.Microsecond)
	}
	n, vs := h.Quantiles(0.5, 0.9, 0.99, 0.999, 1)
	for k, want := range []float64{50e6, 90e6, 99e6, 99.9e6, 100e6} {
		if g := float64(vs[k]); g < want || g > want*1.032 {
			t.Errorf("quantile %d = %v, want %v within +3.2%%", k, vs[k], time.Duration(want))
		}
	}
	if n != 100000 || h.Count() != n || h.Max() != 100*time.Millisecond || h.Zeros() != 0 {
		t.Errorf("count %d/%d, max %v, zeros %d", n, h.Count(), h.Max(), h.Zeros())
	}
}

func TestZerosEmptyAndMax(t *testing.T) {
	t.Parallel()
	var h Histogram
	if _, ok := h.Quantile(0.5); ok {
		t.Error("an empty histogram has a median")
	}
	if n, vs := h.Quantiles(0.5); n != 0 || vs != nil {
		t.Errorf("empty: %d %v", n, vs)
	}
	h.Add(0)
	h.Add(-5) // counts as 0
	h.Add(3 * time.Millisecond)
	if h.Count() != 3 || h.Zeros() != 2 {
		t.Errorf("count %d zeros %d, want 3 and 2", h.Count(), h.Zeros())
	}
	// Ranks ⌈q·3⌉: 0.5 → 2 (a zero), 0.67 → 3; the top bucket's bound is cut
	// to the largest value.
	if v, _ := h.Quantile(0.5); v != 0 {
		t.Errorf("median %v, want 0", v)
	}
	if v, _ := h.Quantile(0.67); v != 3*time.Millisecond {
		t.Errorf("p67 %v, want 3ms (the maximum, not its bucket's bound)", v)
	}
	if v, _ := h.Quantile(0); v != 0 {
		t.Errorf("p0 %v, want the smallest", v)
	}
}

func TestNearestRank(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q    float64
		n    int64
		want int64
	}{
		{0.07, 100, 7}, {0.99, 200, 198}, {0.999, 1000, 999}, {0.999, 1001, 1000}, {0.5, 3, 2}, {0, 10, 1}, {1, 10, 10}, {0.9999, 20000, 19998}, {0.57, 100, 57},
	} {
		if got := NearestRank(c.q, c.n); got != c.want {
			t.Errorf("NearestRank(%v, %d) = %d, want %d", c.q, c.n, got, c.want)
		}
	}
}

// Many writers: nothing is lost.
func TestConcurrentAdds(t *testing.T) {
	t.Parallel()
	var h Histogram
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				h.Add(time.Duration(w*1000 + i))
			}
		}()
	}
	wg.Wait()
	if n, vs := h.Quantiles(1); n != 8000 || h.Count() != 8000 || vs[0] != 7999 || h.Max() != 7999 {
		t.Errorf("count %d/%d, top %v, max %v", n, h.Count(), vs, h.Max())
	}
}
