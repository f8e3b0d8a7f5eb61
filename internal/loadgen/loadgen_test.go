package loadgen

import (
	"strings"
	"testing"
	"time"
)

func TestLimited(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lag, itl time.Duration
		want     bool
		why      string
	}{
		{500 * time.Microsecond, 20 * time.Millisecond, false, ""},
		{1500 * time.Microsecond, 20 * time.Millisecond, true, "above 1 ms"},
		{time.Millisecond, 0, false, ""}, // at the bound is within it
		{300 * time.Microsecond, 2 * time.Millisecond, true, "above 10% of the ITL p50 (2 ms)"},
		{200 * time.Microsecond, 2 * time.Millisecond, false, ""},
		{300 * time.Microsecond, -1, false, ""}, // ITL unknown: the lag alone
	} {
		got, why := Limited(c.lag, c.itl)
		if got != c.want || !strings.Contains(why, c.why) || (c.why == "" && why != "") {
			t.Errorf("Limited(%v, %v) = %v %q, want %v containing %q", c.lag, c.itl, got, why, c.want, c.why)
		}
	}
}
