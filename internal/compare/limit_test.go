package compare

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want RegressionLimit
		back string
	}{
		{"p99=10%", RegressionLimit{Stat: "p99", Max: 0.10, Relative: true}, "p99=10%"},
		{"p(99.9)=25%", RegressionLimit{Stat: "p99.9", Max: 0.25, Relative: true}, "p99.9=25%"},
		{"llm_ttft:p95=50ms", RegressionLimit{Metric: "llm_ttft", Stat: "p95", Max: 50}, "llm_ttft:p95=50ms"},
		{"avg=0.2s", RegressionLimit{Stat: "avg", Max: 200}, "avg=200ms"},
		{"med=500us", RegressionLimit{Stat: "p50", Max: 0.5}, "p50=0.5ms"},
		{"llm_ttft:P90 = 0%", RegressionLimit{Metric: "llm_ttft", Stat: "p90", Max: 0, Relative: true}, "llm_ttft:p90=0%"},
	} {
		got, err := ParseLimit(tc.in)
		if err != nil {
			t.Errorf("ParseLimit(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseLimit(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		if got.String() != tc.back {
			t.Errorf("ParseLimit(%q).String() = %q, want %q", tc.in, got.String(), tc.back)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"p99", "want STAT=MAX"},
		{"p99=10", "needs a unit"},
		{"p100=10%", "unknown statistic"},
		{"max=10%", "unknown statistic"},
		{"p99=-5%", "must not be negative"},
		{"p99=abc%", "is not a number"},
		{":p99=5%", "empty metric"},
		{"llm_ttft{model:a}:p99=5%", "is not a metric name"},
	} {
		if _, err := ParseLimit(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.in) {
			t.Errorf("ParseLimit(%q): error %v, want one naming the input and containing %q", tc.in, err, tc.want)
		}
	}
}

func TestLimitExceeded(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 8))
	base := lognormal(r, 5000, 6, 0.5)
	for _, tc := range []struct {
		factor float64
		limit  string
		want   bool
	}{
		{1.30, "p99=10%", true}, // 30% worse: beyond 10% with confidence
		{1.30, "p50=10%", true},
		{1.05, "p99=10%", false},    // 5% worse: within the limit
		{1.00, "p50=0%", false},     // the same distribution
		{0.70, "p99=0%", false},     // better
		{1.30, "p50=1000ms", false}, // 30% of ~400 ms is ~120 ms < 1000 ms
		{1.30, "p50=50ms", true},
	} {
		cand := scaled(lognormal(r, 5000, 6, 0.5), tc.factor)
		res, err := Compare(base, cand)
		if err != nil {
			t.Fatal(err)
		}
		l, err := ParseLimit(tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, c := range res.Changes {
			got = got || l.Exceeded(c)
		}
		if got != tc.want {
			t.Errorf("factor %.2f, limit %s: exceeded = %v, want %v (%+v)", tc.factor, tc.limit, got, tc.want, change(t, res, l.Stat))
		}
	}
	if (RegressionLimit{Stat: "p99", Max: 0, Relative: true}).Exceeded(Change{Stat: "p99", Verdict: TooFew, RelLo: 1}) {
		t.Error("a change with too few samples broke a limit")
	}
}
