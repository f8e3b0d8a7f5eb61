package percentile

import (
	"testing"
	"time"
)

func TestK6(t *testing.T) {
	t.Parallel()
	vals := []float64{1, 2, 3, 4, 10}
	for _, tc := range []struct{ p, want float64 }{
		{0, 1}, {50, 3}, {100, 10}, {25, 2}, {90, 7.6}, {95, 8.8}, {99, 9.76}, {12.5, 1.5},
	} {
		if got := K6(vals, tc.p); got != tc.want && !near(got, tc.want) {
			t.Errorf("K6(%v, %v) = %v, want %v", vals, tc.p, got, tc.want)
		}
	}
	if got := K6([]float64{7}, 99); got != 7 {
		t.Errorf("one value: %v", got)
	}
	if got := K6([]float64(nil), 50); got != 0 {
		t.Errorf("no values: %v", got)
	}
}

// k6 computes rank = p/100·(n−1) and interpolates in float64: on durations
// the interpolated part is truncated to the nanosecond, so the duration form
// is within 1 ns below the float form on the same samples.
func TestK6Durations(t *testing.T) {
	t.Parallel()
	ds := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond, 41 * time.Millisecond}
	fs := make([]float64, len(ds))
	for i, d := range ds {
		fs[i] = float64(d)
	}
	for _, p := range []float64{0, 33.3, 50, 90, 99, 99.9, 100} {
		got, want := float64(K6(ds, p)), K6(fs, p)
		if got > want+1e-6 || got < want-1-1e-6 {
			t.Errorf("p(%v): durations %v, floats %v", p, got, want)
		}
	}
	if got := K6(ds, 50); got != 25*time.Millisecond {
		t.Errorf("p(50) = %v, want 25ms", got)
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-12 && d > -1e-12
}
