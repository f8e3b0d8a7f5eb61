package shape

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// run makes n samples spread evenly over 180 s, lognormal around 400 ms,
// multiplied by scale(t).
func run(seed uint64, n int, scale func(t time.Duration) float64) []stats.Sample {
	r := rand.New(rand.NewPCG(seed, 11))
	out := make([]stats.Sample, n)
	for i := range out {
		t := time.Duration(r.Int64N(int64(180 * time.Second)))
		out[i] = stats.Sample{T: t, V: scale(t) * math.Exp(6+0.4*r.NormFloat64())}
	}
	return out
}

func TestWindows(t *testing.T) {
	t.Parallel()
	samples := run(1, 20000, func(time.Duration) float64 { return 1 })
	// Leave a hole between 50 and 60 s.
	samples = slices.DeleteFunc(samples, func(s stats.Sample) bool { return s.T >= 50*time.Second && s.T < 60*time.Second })
	ws, err := Windows(samples, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 18 {
		t.Fatalf("%d windows, want 18", len(ws))
	}
	total := 0
	for i, w := range ws {
		if w.Start != time.Duration(i)*10*time.Second || w.End != w.Start+10*time.Second {
			t.Errorf("window %d spans %v–%v", i, w.Start, w.End)
		}
		var vals []float64
		for _, s := range samples {
			if s.T >= w.Start && s.T < w.End {
				vals = append(vals, s.V)
			}
		}
		total += w.N
		if w.N != len(vals) {
			t.Errorf("window %d: N = %d, want %d", i, w.N, len(vals))
		}
		if i == 5 {
			if w.N != 0 || !math.IsNaN(w.P50) || !math.IsNaN(w.P99) {
				t.Errorf("empty window: %+v", w)
			}
			continue
		}
		slices.Sort(vals)
		p50, _ := stats.Percentile(vals, 50)
		p99, _ := stats.Percentile(vals, 99)
		if w.P50 != p50 || w.P99 != p99 {
			t.Errorf("window %d: P50 %g P99 %g, want %g %g", i, w.P50, w.P99, p50, p99)
		}
		if w.TooFewForP99 != (w.N < 200) {
			t.Errorf("window %d: TooFewForP99 %v with %d samples", i, w.TooFewForP99, w.N)
		}
	}
	if total != len(samples) {
		t.Errorf("windows hold %d samples, want %d", total, len(samples))
	}
	for _, tc := range []struct {
		s     []stats.Sample
		width time.Duration
		want  string
	}{
		{samples, 0, "not positive"},
		{[]stats.Sample{{T: -time.Second, V: 1}}, time.Second, "sample 0 is at -1s, before the start"},
		{[]stats.Sample{{T: time.Hour, V: 1}}, time.Millisecond, "more than 100000"},
	} {
		if _, err := Windows(tc.s, tc.width); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Windows(width %v): %v, want an error containing %q", tc.width, err, tc.want)
		}
	}
}

func TestDrift(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		scale func(time.Duration) float64
		want  Trend
		says  string
	}{
		{"steady", func(time.Duration) float64 { return 1 }, Stable, "no drift — from the first third of the run"},
		{"degrading", func(t time.Duration) float64 { return 1 + t.Seconds()/180 }, Worse, "later windows are worse — from the first third"},
		{"warm-up", func(t time.Duration) float64 {
			if t < 40*time.Second {
				return 2
			}
			return 1
		}, Better, "the start of the run is slower"},
	} {
		for seed := range uint64(10) {
			r := Drift("llm_ttft", run(seed, 6000, tc.scale))
			if r.Trend != tc.want || !strings.Contains(r.Sentence, tc.says) {
				t.Fatalf("%s seed %d: trend %q, want %q: %s", tc.name, seed, r.Trend, tc.want, r.Sentence)
			}
			if r.Early.N+r.Late.N > 6000 || r.Early.N < 1500 || r.Late.N < 1500 {
				t.Errorf("%s: thirds hold %d and %d of 6000 samples", tc.name, r.Early.N, r.Late.N)
			}
		}
	}
	r := Drift("llm_ttft", run(1, 30, func(time.Duration) float64 { return 1 }))
	if r.Trend != NotJudge || !strings.Contains(r.Sentence, "too few samples to judge drift") {
		t.Errorf("30 samples: %s", r.Sentence)
	}
	if r := Drift("x", nil); r.Trend != NotJudge {
		t.Errorf("no samples: %+v", r)
	}
}
