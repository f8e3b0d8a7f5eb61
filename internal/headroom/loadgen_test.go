package headroom

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lag, itl float64
		n        int
		want     bool
		why      string
	}{
		{0.5, 20, 100, false, ""},
		{1.5, 20, 100, true, "above 1 ms"},
		{1.5, 20, 1000, true, "(1000 requests)"},
		{1, 0, 100, false, ""}, // at the bound is within it
		{0.3, 2, 100, true, "above 10% of the ITL p50 (2 ms)"},
		{0.2, 2, 100, false, ""},
		{0.3, -1, 100, false, ""}, // ITL unknown: the lag alone
		// Too few samples: never a warning, and the reason says how many.
		{50, 20, 2, false, "2 client lag sample(s), the rule needs 100"},
		{50, 20, 99, false, "99 client lag sample(s)"},
	} {
		got, why := Judge(c.lag, c.itl, c.n)
		if got != c.want || !strings.Contains(why, c.why) || (c.why == "" && why != "") {
			t.Errorf("Judge(%v, %v, %d) = %v %q, want %v containing %q", c.lag, c.itl, c.n, got, why, c.want, c.why)
		}
	}
}
