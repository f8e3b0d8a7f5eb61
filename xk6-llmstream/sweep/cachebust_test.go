package sweep

import (
	"strings"
	"testing"
)

func levelWithHitRate(i int, r *float64) Level {
	return Level{Index: i, Server: &ServerSignals{PrefixHitRate: r}}
}

// TestCacheWarning: the rule of the warning about prompts reused across
// levels, without k6.
func TestCacheWarning(t *testing.T) {
	t.Parallel()
	r := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name   string
		levels []Level
		busted bool
		want   string // "" no warning
	}{
		{"one level, no busting", []Level{levelWithHitRate(1, r(0.7))}, false, ""},
		{"no busting, no scrape", []Level{{Index: 1}, {Index: 2}}, false, "without cache busting"},
		{"no busting, rates quoted", []Level{levelWithHitRate(1, r(0.733)), levelWithHitRate(2, r(0.95))}, false, "level 1 73.3%, level 2 95.0%"},
		{"busted, equal rates", []Level{levelWithHitRate(1, r(0.711)), levelWithHitRate(2, r(0.711))}, true, ""},
		{"busted, within the limit", []Level{levelWithHitRate(1, r(0.70)), levelWithHitRate(2, r(0.74))}, true, ""},
		{"busted, a later level rose", []Level{levelWithHitRate(1, r(0.70)), levelWithHitRate(2, r(0.72)), levelWithHitRate(3, r(0.90))}, true,
			"level 3's prefix-cache hit rate 90.0% is above the first level's 70.0%"},
		{"busted, no scrape", []Level{{Index: 1}, {Index: 2}}, true, ""},
	} {
		got := CacheWarning(c.levels, c.busted)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPrefixOver: the hit rate is the growth of the counters from the first
// scrape that had them to the last; none without counters or queries.
func TestPrefixOver(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	s := func(q, h *float64) ServerSample {
		var x ServerSample
		x.PrefixQueries, x.PrefixHits = q, h
		return x
	}
	q, h, rate := prefixOver([]ServerSample{s(nil, nil), s(f(100), f(10)), s(f(600), f(310)), s(nil, nil)})
	if q != 500 || h != 300 || rate == nil || *rate != 0.6 {
		t.Errorf("queries %v hits %v rate %v, want 500 300 0.6", q, h, rate)
	}
	if _, _, rate := prefixOver([]ServerSample{s(f(5), f(1)), s(f(5), f(1))}); rate != nil {
		t.Errorf("no queries during the level: rate %v", *rate)
	}
}
