package headroom

import (
	"strings"
	"testing"
)

func TestJudgeSendLag(t *testing.T) {
	for _, c := range []struct {
		p50, p99 float64
		n        int
		degraded bool
		why      string
	}{
		{1, 40, 1000, false, ""},
		{1, 500, 1000, false, ""},
		{1, 500.5, 1000, true, "send lag p99 500.5 ms (1000 requests) is above 500 ms"},
		{10.5, 20, 1000, true, "send lag median 10.5 ms (1000 requests) is above 10 ms"},
		{0, 0, 0, false, "no send lag"},
	} {
		d, why := JudgeSendLag(c.p50, c.p99, c.n)
		if d != c.degraded || !strings.HasPrefix(why, c.why) || (c.why == "" && why != "") {
			t.Errorf("JudgeSendLag(%v, %v, %d) = %v %q, want %v %q", c.p50, c.p99, c.n, d, why, c.degraded, c.why)
		}
	}
}
