package headroom

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	idle := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		s    Signals
		want bool
		why  string
	}{
		{Signals{0.05, 100, nil}, false, ""},
		{Signals{1.5, 100, nil}, true, "client lag p50 1.5 ms over 100 requests is above 0.15 ms"},
		{Signals{0.15, 100, nil}, false, ""}, // at the bound is within it
		{Signals{0.05, 100, idle(0.84)}, false, ""},
		{Signals{0.05, 100, idle(0.25)}, false, ""}, // at the bound is within it
		{Signals{0.05, 100, idle(0.05)}, true, "the CPUs were 5% idle while the median request ran (under 25%)"},
		{Signals{0.05, 3, idle(0.02)}, true, "2% idle"}, // a saturated machine needs no sample count
		// Too few samples: no verdict, and the reason says how many.
		{Signals{50, 2, nil}, false, "2 client lag sample(s), the rule needs 100"},
		{Signals{50, 99, idle(0.5)}, false, "99 client lag sample(s)"},
	} {
		got, why := Judge(c.s)
		if got != c.want || !strings.Contains(why, c.why) || (c.why == "" && why != "") {
			t.Errorf("Judge(%+v) = %v %q, want %v containing %q", c.s, got, why, c.want, c.why)
		}
	}
}

// TestLineIsShort: the warning's first line stays under 200 characters for
// the longest reasons the rule gives, and names the page that explains it.
func TestLineIsShort(t *testing.T) {
	t.Parallel()
	for _, s := range []Signals{{123456.789, 10_000_000, nil}, {0.1, 100, func() *float64 { v := 0.0; return &v }()}} {
		limited, why := Judge(s)
		line := "warning: " + Line(why)
		if !limited || utf8.RuneCountInString(line) > 200 || !strings.Contains(line, Doc) {
			t.Errorf("%d characters, limited %v: %q", utf8.RuneCountInString(line), limited, line)
		}
	}
}
