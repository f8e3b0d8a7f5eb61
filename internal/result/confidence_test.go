package result

import (
	"math"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

func mustCheck(t *testing.T, src string) thresholds.Check {
	t.Helper()
	cs, err := thresholds.Parse(src)
	if err != nil || len(cs) != 1 {
		t.Fatal(src, err)
	}
	return cs[0]
}

// ramp is n evenly spread values 1..n (sorted).
func ramp(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i + 1)
	}
	return v
}

// The defect: a p(99) gate on a short run passed on k6's value alone, so it
// could never fail. Now it is inconclusive, and says how many samples close
// the interval.
func TestJudgeShortRunIsInconclusive(t *testing.T) {
	t.Parallel()
	c := mustCheck(t, "llm_ttft: p(99)<1000")
	d := thresholds.Data{Type: k6json.Trend, Sorted: ramp(50), Count: 50}
	if res := c.Evaluate(d); !res.Passed {
		t.Fatal("k6's value passes")
	}
	j := Judge(c, d, 0.95)
	if j.Verdict != Inconclusive || !math.IsInf(j.Hi, 1) {
		t.Fatalf("%+v: want inconclusive with an open upper end", j)
	}
	// The limit is above every value: the interval decides it as soon as it
	// closes above, at the order-statistic rule's n.
	if want := int64(stats.ClosedIntervalN(0.99, 0.95)); j.Needed != want || want != 368 {
		t.Errorf("needed %d, want %d (0.99^n ≤ 0.025)", j.Needed, want)
	}
	if !strings.Contains(j.Reason, "368 samples") || !strings.Contains(j.Reason, "have 50") {
		t.Errorf("reason %q", j.Reason)
	}
}

func TestJudgeVerdicts(t *testing.T) {
	t.Parallel()
	big := ramp(10000)
	for _, c := range []struct {
		src  string
		d    thresholds.Data
		want Verdict
	}{
		{"m: p(99)<20000", thresholds.Data{Type: k6json.Trend, Sorted: big, Count: 10000}, Pass},
		{"m: p(99)<9500", thresholds.Data{Type: k6json.Trend, Sorted: big, Count: 10000}, Fail},
		{"m: p(99)<9900", thresholds.Data{Type: k6json.Trend, Sorted: big, Count: 10000}, Inconclusive},
		{"m: med>4000", thresholds.Data{Type: k6json.Trend, Sorted: big, Count: 10000}, Pass},
		{"m: avg<1", thresholds.Data{Type: k6json.Trend, Sorted: big, Count: 10000}, Fail},     // on the value
		{"m: max<20000", thresholds.Data{Type: k6json.Trend, Sorted: big, Count: 10000}, Pass}, // on the value
		{"m: rate<0.05", thresholds.Data{Type: k6json.Rate, Count: 10000, NonZero: 100}, Pass},
		{"m: rate<0.011", thresholds.Data{Type: k6json.Rate, Count: 10000, NonZero: 100}, Inconclusive},
		{"m: rate<0.01", thresholds.Data{Type: k6json.Rate, Count: 100, NonZero: 0}, Inconclusive},
		{"m: p(95)<1", thresholds.Data{Type: k6json.Trend}, Fail},                        // no data
		{"m: rate==0", thresholds.Data{Type: k6json.Rate, Count: 100, NonZero: 0}, Pass}, // equality: on the value
		{"m: rate==1", thresholds.Data{Type: k6json.Rate, Count: 100, NonZero: 99}, Fail},
		{"m: p(50)!=3", thresholds.Data{Type: k6json.Trend, Sorted: big, Count: 10000}, Pass},
	} {
		j := Judge(mustCheck(t, c.src), c.d, 0.95)
		if j.Verdict != c.want {
			t.Errorf("%s: %s (%+v), want %s", c.src, j.Verdict, j, c.want)
		}
		if j.Verdict == Inconclusive && (j.Needed <= c.d.Count || j.Reason == "") {
			t.Errorf("%s: needed %d, reason %q", c.src, j.Needed, j.Reason)
		}
	}
}

// The sample size Judge names does decide the check when the distribution
// stays as observed: judged again on that many samples from it.
func TestJudgeNeededDecides(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"m: p(99)<995", "m: p(90)>890", "m: med<520"} {
		c := mustCheck(t, src)
		obs := ramp(1000)
		j := Judge(c, thresholds.Data{Type: k6json.Trend, Sorted: obs, Count: 1000}, 0.95)
		if j.Verdict != Inconclusive || j.Needed == 0 {
			t.Fatalf("%s: %+v", src, j)
		}
		more := make([]float64, j.Needed) // the same distribution, j.Needed samples
		for i := range more {
			more[i] = obs[int(math.Ceil(float64(i+1)/float64(j.Needed)*1000))-1]
		}
		if again := Judge(c, thresholds.Data{Type: k6json.Trend, Sorted: more, Count: j.Needed}, 0.95); again.Verdict == Inconclusive {
			t.Errorf("%s: %d samples were named to decide it, but it is still %+v", src, j.Needed, again)
		}
	}
	// Two modes with the limit between them at the median: no sample size
	// from this distribution decides it.
	two := append(slicesRepeat(1, 500), slicesRepeat(3, 500)...)
	j := Judge(mustCheck(t, "m: med<2"), thresholds.Data{Type: k6json.Trend, Sorted: two, Count: 1000}, 0.95)
	if j.Verdict != Inconclusive || j.Needed != 0 || !strings.Contains(j.Reason, "would not decide") {
		t.Errorf("at the limit: %+v", j)
	}
}

func slicesRepeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestLimitedByLoadGenerator(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lag  float64
		want bool
	}{
		{0.05, false}, {1.5, true}, {0.15, false}, {0.151, true}, {math.NaN(), false},
	} {
		if got, why := LimitedByLoadGenerator(c.lag, 100, nil); got != c.want || got == (why == "") {
			t.Errorf("lag p50 %v: %v %q, want %v", c.lag, got, why, c.want)
		}
		// Too few samples: no verdict, and the reason says how many there were.
		if got, why := LimitedByLoadGenerator(c.lag, 2, nil); got || !strings.Contains(why, "2 client lag sample(s)") {
			t.Errorf("lag p50 %v over 2 samples: %v %q, want no verdict", c.lag, got, why)
		}
	}
	// The CPU clause: a machine with almost no idle CPU is limited whatever
	// the lag; one with enough is judged by the lag.
	busy, quiet := 0.02, 0.9
	if got, why := LimitedByLoadGenerator(0.1, 500, &busy); !got || !strings.Contains(why, "2% idle") {
		t.Errorf("2%% idle: %v %q, want limited, naming the idle share", got, why)
	}
	if got, why := LimitedByLoadGenerator(0.1, 500, &quiet); got || why != "" {
		t.Errorf("90%% idle, lag p50 0.1 ms: %v %q, want not limited", got, why)
	}
}

// TestSamplesToDecide: the smallest count above have at which the gate
// decides, for a gate that decides from some count on; 0 when none up to
// MaxNeeded does.
func TestSamplesToDecide(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ have, from, want int64 }{
		{1, 2, 2}, {1, 368, 368}, {120, 368, 368}, {367, 368, 368}, {0, 5, 5}, {1000, 1001, 1001},
		{10, MaxNeeded, MaxNeeded}, {10, MaxNeeded + 1, 0},
	} {
		calls := 0
		got := SamplesToDecide(c.have, func(n int64) bool { calls++; return n >= c.from })
		if got != c.want {
			t.Errorf("have %d, decided from %d: %d, want %d", c.have, c.from, got, c.want)
		}
		if calls > 64 {
			t.Errorf("have %d, decided from %d: %d evaluations of the gate", c.have, c.from, calls)
		}
	}
}
