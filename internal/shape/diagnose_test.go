package shape

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmstream/xk6-llmstream/internal/numfmt"
)

// Synthetic distributions with known shapes; each returns n sorted samples.
type generator struct {
	name  string
	shape Shape
	gen   func(r *rand.Rand, n int) []float64
}

func sorted(v []float64) []float64 { slices.Sort(v); return v }

func fill(n int, f func() float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = f()
	}
	return sorted(v)
}

var generators = []generator{
	{"capped lognormal (timeout at 2000 ms)", Cliff, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 { return min(2000, math.Exp(6+0.8*r.NormFloat64())) })
	}},
	{"capped, the cap firing up to 15 ms late", Cliff, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 {
			v := math.Exp(6 + 0.8*r.NormFloat64())
			if v > 2000 {
				v = 2000 + 15*r.Float64()
			}
			return v
		})
	}},
	{"rate limit: 8% wait for a 1 s retry", Cliff, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 {
			v := 300 + 40*r.NormFloat64()
			if r.Float64() < 0.08 {
				v = 1000 + 3*r.Float64()
			}
			return v
		})
	}},
	{"lognormal long tail", Gradual, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 { return math.Exp(6 + r.NormFloat64()) })
	}},
	{"heavy lognormal (sigma 2)", Gradual, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 { return math.Exp(5 + 2*r.NormFloat64()) })
	}},
	{"exponential (M/M/1 queueing)", Gradual, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 { return 100 * r.ExpFloat64() })
	}},
	{"bimodal: 75% cache hits, 25% misses", TwoModes, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 {
			if r.Float64() < 0.75 {
				return 120 + 15*r.NormFloat64()
			}
			return 450 + 40*r.NormFloat64()
		})
	}},
	{"bimodal: two replicas 50/50", TwoModes, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 {
			if r.IntN(2) == 0 {
				return math.Exp(5 + 0.1*r.NormFloat64())
			}
			return math.Exp(6 + 0.1*r.NormFloat64())
		})
	}},
	{"tight normal", Tight, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 { return 500 + 30*r.NormFloat64() })
	}},
	{"very tight lognormal", Tight, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 { return math.Exp(6 + 0.02*r.NormFloat64()) })
	}},
	{"uniform", Tight, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 { return 100 + 100*r.Float64() })
	}},
	{"whole milliseconds 1–12", Discrete, func(r *rand.Rand, n int) []float64 {
		return fill(n, func() float64 { return math.Round(math.Exp(1 + 0.5*r.NormFloat64())) })
	}},
}

// TestDiagnoseShapes diagnoses each synthetic shape over 20 seeds and two
// sample sizes: every run must get the right shape.
func TestDiagnoseShapes(t *testing.T) {
	t.Parallel()
	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, n := range []int{5000, 50000} {
				for seed := range uint64(20) {
					v := g.gen(rand.New(rand.NewPCG(seed, uint64(n))), n)
					d := Diagnose("llm_ttft", v)
					if d.Shape != g.shape {
						t.Fatalf("n=%d seed=%d: shape %q, want %q: %s", n, seed, d.Shape, g.shape, d.Sentence)
					}
				}
			}
		})
	}
}

func TestDiagnoseDetails(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 1))
	gen := func(name string) []float64 {
		for _, g := range generators {
			if g.name == name {
				return g.gen(r, 20000)
			}
		}
		t.Fatalf("no generator %q", name)
		return nil
	}

	// Capped at 2000 ms: P(lognormal(6, 0.8) > 2000) = P(Z > (ln 2000 − 6)/0.8) = 2.3%.
	d := Diagnose("llm_ttft", gen("capped lognormal (timeout at 2000 ms)"))
	if d.Wall == nil || d.Wall.At != 2000 || d.Wall.Lo < 1980 || d.Wall.Hi != 2000 || math.Abs(d.Wall.Share-0.023) > 0.005 || d.Wall.Above != 0 {
		t.Fatalf("capped: wall %+v, want about 2.3%% at 1980–2000 ms, none above", d.Wall)
	}
	for _, want := range []string{"llm_ttft: cliff at 2000 ms — " + formatShare(d.Wall.Share) + " of samples lie within", "and none above", "timeout, a rate limit or a queue bound", "P99 is ", "(threshold 3.0×)"} {
		if !strings.Contains(d.Sentence, want) {
			t.Errorf("capped: sentence %q lacks %q", d.Sentence, want)
		}
	}

	// Lognormal(6, 1): P99/P50 = e^{2.326} = 10.2, P99.9/P99 = e^{3.090−2.326} = 2.15.
	d = Diagnose("llm_ttft", gen("lognormal long tail"))
	if !d.LongTail || math.Abs(d.RatioP99P50-10.2)/10.2 > 0.1 || math.Abs(d.RatioP999P99-2.15)/2.15 > 0.1 {
		t.Errorf("lognormal: ratios %.2f, %.2f, want about 10.2 and 2.15", d.RatioP99P50, d.RatioP999P99)
	}
	wantStart := fmt.Sprintf("llm_ttft: long tail — P99 is %s P50 (threshold 3.0×) and P99.9 is %s P99 (threshold 1.5×); the ECDF rises gradually between P90",
		formatRatio(d.RatioP99P50), formatRatio(d.RatioP999P99))
	if !strings.HasPrefix(d.Sentence, wantStart) || !strings.Contains(d.Sentence, "no cliff, typical of queueing, jitter") {
		t.Errorf("lognormal sentence:\n%s\nwant it to start\n%s", d.Sentence, wantStart)
	}

	// 75% N(120, 15) and 25% N(450, 40): the gap lies between them.
	d = Diagnose("llm_ttft", gen("bimodal: 75% cache hits, 25% misses"))
	// Between the modes (120 + 3·15 = 165 ms and 450 − 3·40 = 330 ms) lies
	// about 0.2% of the mass.
	if d.Gap == nil || d.Gap.Lo < 140 || d.Gap.Hi > 400 || d.Gap.Hi-d.Gap.Lo < 100 || math.Abs(d.Gap.Below-0.75) > 0.02 || 1-d.Gap.Below-d.Gap.Above > 0.02 {
		t.Fatalf("bimodal: gap %+v, want about 165–330 ms with 75%% below, 25%% above", d.Gap)
	}
	if want := fmt.Sprintf("two modes — %s of samples lie below %s and %s above %s, with %s between",
		formatShare(d.Gap.Below), numfmt.Sig4Unit(d.Gap.Lo, "ms"), formatShare(d.Gap.Above), numfmt.Sig4Unit(d.Gap.Hi, "ms"), formatShare(1-d.Gap.Below-d.Gap.Above)); !strings.Contains(d.Sentence, want) || !strings.Contains(d.Sentence, "cache hits and misses") {
		t.Errorf("bimodal sentence: %s", d.Sentence)
	}

	d = Diagnose("llm_tpot", gen("tight normal"))
	if d.LongTail || !strings.HasPrefix(d.Sentence, "llm_tpot: no long tail — P99 is 1.1× P50 (threshold 3.0×)") {
		t.Errorf("tight: %s", d.Sentence)
	}
}

func TestDiagnoseFewSamples(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 2))
	d := Diagnose("llm_ttft", fill(150, func() float64 { return math.Exp(6 + r.NormFloat64()) }))
	if d.Shape != Unknown || !math.IsNaN(d.RatioP99P50) || d.Sentence != "llm_ttft: too few samples (150) to judge the tail: P99 needs 200, P99.9 2000." {
		t.Errorf("150 samples: %+v", d)
	}
	d = Diagnose("llm_ttft", fill(1000, func() float64 { return math.Exp(6 + r.NormFloat64()) }))
	if math.IsNaN(d.RatioP99P50) || !math.IsNaN(d.RatioP999P99) || !strings.Contains(d.Sentence, "P99.9 is not judged (1000 samples, needs 2000)") {
		t.Errorf("1000 samples: %s", d.Sentence)
	}
	if d := Diagnose("x", nil); d.Sentence != "x: no samples." || !math.IsNaN(d.P50) {
		t.Errorf("no samples: %+v", d)
	}
	zeros := make([]float64, 500)
	for i := range zeros {
		zeros[i] = float64(i) - 400 // P50 ≤ 0
	}
	if d := Diagnose("x", zeros); !strings.Contains(d.Sentence, "P99/P50 is undefined (P50 ≤ 0)") {
		t.Errorf("non-positive P50: %s", d.Sentence)
	}
}

func TestDiagnoseThresholdOptions(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 3))
	v := fill(5000, func() float64 { return 500 + 30*r.NormFloat64() }) // P99/P50 ≈ 1.14
	if d := Diagnose("x", v, LongTailRatio(1.1), Unit("s")); !d.LongTail || !strings.Contains(d.Sentence, "(threshold 1.10×)") || !strings.Contains(d.Sentence, "("+numfmt.Sig4Unit(d.P90, "s")+")") {
		t.Errorf("threshold 1.1: %s", d.Sentence)
	}
}

// ExampleDiagnose shows the wording for a lognormal latency distribution
// (deterministic: its exact quantiles at evenly spaced levels).
func ExampleDiagnose() {
	const n = 10000
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Exp(6 + 0.9*distuv.UnitNormal.Quantile((float64(i)+0.5)/n))
	}
	fmt.Println(Diagnose("llm_ttft", v).Sentence)
	// Output:
	// llm_ttft: long tail — P99 is 8.1× P50 (threshold 3.0×) and P99.9 is 2.0× P99 (threshold 1.5×); the ECDF rises gradually between P90 (1278 ms) and P99 (3268 ms) with no cliff, typical of queueing, jitter or pauses (GC, batching).
}

func TestDiagnoseWording(t *testing.T) {
	t.Parallel()
	if r, th := formatRatios(3.04, 3); r != "3.04×" || th != "3.00×" {
		t.Errorf("formatRatios(3.04, 3) = %s, %s", r, th)
	}
	if r, th := formatRatios(7.83, 3); r != "7.8×" || th != "3.0×" {
		t.Errorf("formatRatios(7.83, 3) = %s, %s", r, th)
	}
	// A tight body with 0.3% stalls at +250 ms: only P99.9/P99 is long.
	r := rand.New(rand.NewPCG(4, 4))
	v := fill(20000, func() float64 {
		x := 20 + 3*r.NormFloat64()
		if r.Float64() < 0.003 {
			x += 250
		}
		return x
	})
	d := Diagnose("llm_itl", v)
	if d.Shape != Gradual || !strings.HasPrefix(d.Sentence, "llm_itl: long extreme tail — P99 is 1.") || !strings.Contains(d.Sentence, "rare samples far above P99") {
		t.Errorf("stalls: shape %q: %s", d.Shape, d.Sentence)
	}
}

// BenchmarkDiagnose10M prints the time to diagnose 10 million sorted samples
// (summary does it for every Trend group, after sorting them):
//
//	go test ./shape -run '^$' -bench Diagnose10M -benchtime 5x
func BenchmarkDiagnose10M(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	v := fill(10_000_000, func() float64 { return math.Exp(6 + 0.7*r.NormFloat64()) }) // sorted
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if d := Diagnose("llm_itl", v); d.Shape != Gradual {
			b.Fatalf("shape %q", d.Shape)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op")
}
