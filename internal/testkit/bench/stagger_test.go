package bench

import (
	"testing"
	"time"
)

func TestStaggerOffset(t *testing.T) {
	t.Parallel()
	const w = 20 * time.Millisecond
	offs := StaggerOffsets(200, w)
	if len(offs) != 200 || offs[0] != 0 {
		t.Fatalf("offsets start %v (len %d), want 0 (200)", offs[:1], len(offs))
	}
	for i := 1; i < len(offs); i++ {
		if d := offs[i] - offs[i-1]; d != 100*time.Microsecond {
			t.Fatalf("offset %d − offset %d = %v, want 100µs (uniform over %v)", i, i-1, d, w)
		}
	}
	if last := offs[len(offs)-1]; last >= w {
		t.Errorf("last offset %v is not inside the window %v", last, w)
	}
	// Uneven division: still inside the window, never decreasing.
	offs = StaggerOffsets(3, 10*time.Nanosecond)
	if offs[0] != 0 || offs[1] != 3 || offs[2] != 6 {
		t.Errorf("3 slots over 10ns = %v, want [0 3 6]", offs)
	}
	for _, tc := range []struct {
		i, n int
		w    time.Duration
	}{{5, 10, 0}, {5, 10, -time.Second}, {0, 10, w}, {3, 0, w}, {0, 1, w}} {
		if got := StaggerOffset(tc.i, tc.n, tc.w); got != 0 {
			t.Errorf("StaggerOffset(%d, %d, %v) = %v, want 0", tc.i, tc.n, tc.w, got)
		}
	}
	if got, want := StaggerOffset(12, 10, w), StaggerOffset(2, 10, w); got != want {
		t.Errorf("StaggerOffset(12, 10) = %v, want slot 2's %v", got, want)
	}
}

// The 2,000-slot case must not overflow with a long window.
func TestStaggerOffsetLarge(t *testing.T) {
	t.Parallel()
	if got, want := StaggerOffset(1999, 2000, time.Hour), time.Hour*1999/2000; got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestMaxStartsWithin(t *testing.T) {
	t.Parallel()
	ms := int64(time.Millisecond)
	for _, tc := range []struct {
		starts []int64
		want   int
	}{
		{nil, 0},
		{[]int64{5}, 1},
		{[]int64{0, 0, 0, 0}, 4},                    // lockstep
		{[]int64{3 * ms, 0, 2 * ms, ms}, 2},         // one per ms: ends included
		{[]int64{0, ms + 1, 2*ms + 2, 3*ms + 3}, 1}, // just over 1 ms apart
		{[]int64{10 * ms, 0, 10*ms + 5, 10*ms + 9, 5 * ms}, 3},
	} {
		if got := MaxStartsWithin(tc.starts, time.Millisecond); got != tc.want {
			t.Errorf("MaxStartsWithin(%v) = %d, want %d", tc.starts, got, tc.want)
		}
	}
	// The input is left as it was.
	in := []int64{3, 1, 2}
	MaxStartsWithin(in, 1)
	if in[0] != 3 || in[1] != 1 {
		t.Errorf("input reordered: %v", in)
	}
}
