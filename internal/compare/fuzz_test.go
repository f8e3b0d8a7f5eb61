package compare

import "testing"

// FuzzParseLimit: whatever ParseLimit accepts, its String form reads back as
// the same limit; whatever it rejects, it rejects with an error naming the
// input.
func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"p99=10%", "llm_ttft:p95=50ms", "avg=0.2s", "med=500us", "p(99.9)=1.5%", "p99=", "=5%", "a:b:p50=1ms", "p50=1e3ms", "llm_requests_failed:rate=+1pp", "rate=0.5pp", "p99=+10%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLimit(s)
		if err != nil {
			return
		}
		back, err := ParseLimit(l.String())
		if err != nil {
			t.Fatalf("ParseLimit(%q) = %+v, whose String %q does not parse: %v", s, l, l.String(), err)
		}
		if back.Stat != l.Stat || back.Metric != l.Metric || back.Relative != l.Relative || !closeRel(back.Max, l.Max) {
			t.Fatalf("ParseLimit(%q) = %+v, but its String %q reads back as %+v", s, l, l.String(), back)
		}
		if l.Max < 0 {
			t.Fatalf("ParseLimit(%q) accepted a negative limit %+v", s, l)
		}
	})
}

func closeRel(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-12*max(1, a, b)
}
