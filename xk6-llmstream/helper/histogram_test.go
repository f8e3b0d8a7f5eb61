package helper

import (
	"testing"
	"time"
)

// Health's ITL median comes from the one histogram (internal/histogram):
// at most 1/32 above the true value. The helper's former histogram (8
// buckets per doubling) gave up to 9 % above: 10.9 ms for gaps of 10 ms.
func TestHealthQuantileResolution(t *testing.T) {
	t.Parallel()
	h := NewHandler()
	for range 100 {
		h.itl.add(10 * time.Millisecond)
		h.itl.add(11 * time.Millisecond)
		h.itl.add(0)
	}
	got := h.Health()
	if got.ITLGaps != 300 || got.ITLZeroGaps != 100 || got.ITLP50MS == nil {
		t.Fatalf("health %+v, want 300 gaps, 100 of them zero, and a median", got)
	}
	if p50 := *got.ITLP50MS; p50 < 10 || p50 > 10*(1+1.0/32) {
		t.Errorf("ITL p50 %v ms, want 10 ms within +1/32", p50)
	}
}
