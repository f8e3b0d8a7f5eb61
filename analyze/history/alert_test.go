package history

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// steadyRuns simulates runs of an unchanged service, with a scale per run.
func simulate(t testing.TB, seed uint64, n int, samples int, scale func(run int) float64, label func(run int) string) *File {
	var recs []Record
	for k := 0; k < n; k++ {
		m := mockRun{seed: seed, day: k, n: samples, medianMs: 400, sigma: 0.5, scale: scale(k), failRate: 0.01}
		recs = append(recs, m.record(t, label(k)))
	}
	return historyOf(recs)
}

func TestStepFlaggedAtItsRun(t *testing.T) {
	t.Parallel()
	const k, runs = 12, 18
	for seed := uint64(1); seed <= 4; seed++ {
		f := simulate(t, seed, runs, 2000,
			func(r int) float64 { return map[bool]float64{true: 1.5, false: 1}[r >= k] },
			func(r int) string { return map[bool]string{true: "v1.5.0", false: "v1.4.2"}[r >= k] })
		series := SeriesOf(f)
		vs := Evaluate(series, Options{})
		p50AtK := false
		for _, v := range regressions(vs) {
			if v.Run < k {
				t.Errorf("seed %d: %s flagged at run %d, before the step at %d: %s", seed, v.Stat, v.Run, k, v.Reason)
			}
			if v.Run == k && v.Kind != Step {
				t.Errorf("seed %d: %s at run %d is a %s, want a step: %s", seed, v.Stat, v.Run, v.Kind, v.Reason)
			}
			if v.Run == k && v.Stat == "P50" {
				p50AtK = true
				if v.Label != "v1.5.0" {
					t.Errorf("seed %d: flagged run's label %q", seed, v.Label)
				}
			}
		}
		if !p50AtK {
			t.Errorf("seed %d: the step of +50%% at run %d was not flagged on P50", seed, k)
		}
	}
}

func TestCreepNamedCreep(t *testing.T) {
	t.Parallel()
	const start, runs = 8, 26
	for seed := uint64(1); seed <= 4; seed++ {
		f := simulate(t, seed, runs, 2000,
			func(r int) float64 { return math.Pow(1.04, float64(max(0, r-start))) },
			func(r int) string { return "v1.4.2" })
		vs := Evaluate(SeriesOf(f), Options{})
		creeps := 0
		for _, v := range regressions(vs) {
			if v.Run <= start {
				t.Errorf("seed %d: %s flagged at run %d, before the creep began after run %d", seed, v.Stat, v.Run, start)
			}
			if v.Kind != Creep {
				t.Errorf("seed %d: %s at run %d named %s, want creep: %s", seed, v.Stat, v.Run, v.Kind, v.Reason)
			}
			if v.Stat == "P50" {
				creeps++
			}
		}
		if creeps == 0 {
			t.Errorf("seed %d: a creep of +4%% a run over %d runs raised no creep alert on P50", seed, runs-start)
		}
	}
}

// TestNoFalseAlerts measures how often an unchanged service is flagged.
func TestNoFalseAlerts(t *testing.T) {
	t.Parallel()
	seeds, runs, samples := 200, 10, 400
	if testing.Short() {
		seeds = 20
	}
	flagged, inconclusive, tested := 0, 0, 0
	for seed := 1; seed <= seeds; seed++ {
		var recs []Record
		for k := 0; k < runs; k++ {
			m := mockRun{seed: uint64(1000 + seed), day: k, n: samples, medianMs: 400, sigma: 0.5, scale: 1}
			recs = append(recs, m.record(t, "v1"))
		}
		for _, v := range Evaluate(SeriesOf(historyOf(recs)), Options{}) {
			switch v.Status {
			case Regression:
				flagged++
				t.Logf("false alert: seed %d run %d %s: %s", seed, v.Run, v.Stat, v.Reason)
			case Inconclusive:
				inconclusive++
			}
			if v.Status != NoBaseline {
				tested++
			}
		}
	}
	fmt.Printf("false alerts: %d of %d tested run×percentile verdicts (%d seeds × %d runs of %d samples, P50/P90/P99, window %d, limit 10%%); inconclusive: %d\n",
		flagged, tested, seeds, runs, samples, DefaultWindow, inconclusive)
	if flagged > 0 || inconclusive > 0 {
		t.Errorf("an unchanged service raised %d alerts and %d inconclusive verdicts in %d", flagged, inconclusive, tested)
	}
}

func TestInconclusiveFailsClosed(t *testing.T) {
	t.Parallel()
	var recs []Record
	for k := 0; k < 6; k++ {
		n := 2000
		if k == 5 {
			n = 120 // too few for P99
		}
		recs = append(recs, mockRun{seed: 7, day: k, n: n, medianMs: 400, sigma: 0.5, scale: 1}.record(t, "v1"))
	}
	series := SeriesOf(historyOf(recs))
	latest := Latest(series, Evaluate(series, Options{}))
	var p99 *Verdict
	for i := range latest {
		if latest[i].Stat == "P99" {
			p99 = &latest[i]
		}
	}
	if p99 == nil || p99.Status != Inconclusive {
		t.Fatalf("P99 of a run of 120 samples: %+v, want inconclusive", p99)
	}
	// Two samples above P99 need 200; its 95% interval closes from 368
	// (0.99^368 ≤ 0.025).
	if want := max(stats.MinSamples(99, 2), stats.ClosedIntervalN(0.99, 0.95)); p99.Needed != want || want != 368 || !p99.Failing(false) || p99.Failing(true) {
		t.Errorf("inconclusive P99: needed %d (want 368), failing %v/%v (want true without --allow-inconclusive, false with)",
			p99.Needed, p99.Failing(false), p99.Failing(true))
	}
	for _, v := range latest {
		if v.Stat == "P50" && v.Status != OK {
			t.Errorf("P50 of 120 samples: %s (%s), want ok", v.Status, v.Reason)
		}
	}
}

func TestRateRegression(t *testing.T) {
	t.Parallel()
	var recs []Record
	for k := 0; k < 8; k++ {
		fr := 0.01
		if k == 7 {
			fr = 0.06
		}
		recs = append(recs, mockRun{seed: 3, day: k, n: 3000, medianMs: 400, sigma: 0.5, scale: 1, failRate: fr}.record(t, "v1"))
	}
	series := SeriesOf(historyOf(recs))
	lim := parseLimitT(t, "llm_requests_failed:rate=+1pp")
	vs := Evaluate(series, Options{Limits: lim})
	for _, v := range vs {
		want := OK
		if v.Run < MinBaseline {
			want = NoBaseline
		} else if v.Run == 7 {
			want = Regression
		}
		if v.Status != want {
			t.Errorf("run %d failure rate %.4f: %s (%s), want %s", v.Run, *v.Value, v.Status, v.Reason, want)
		}
	}
}

func TestMannKendallTheilSen(t *testing.T) {
	t.Parallel()
	up := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	mk := MannKendallTest(up)
	if mk.S != 28 || mk.PUp > 0.001 {
		t.Errorf("increasing: S=%d p=%g, want 28 and < 0.001", mk.S, mk.PUp)
	}
	// Var(S) = 8·7·21/18; Z = 27/√65.33 = 3.340.
	if math.Abs(mk.Z-27/math.Sqrt(8*7*21/18.0)) > 1e-12 {
		t.Errorf("Z = %g", mk.Z)
	}
	down := MannKendallTest([]float64{8, 7, 6, 5, 4, 3, 2, 1})
	if down.S != -28 || down.PUp < 0.999 {
		t.Errorf("decreasing: S=%d p=%g", down.S, down.PUp)
	}
	ties := MannKendallTest([]float64{1, 1, 1, 1})
	if ties.S != 0 || ties.PUp != 1 {
		t.Errorf("all tied: %+v, want S 0 and p 1", ties)
	}
	ts := TheilSenFit([]float64{10, 12, 14, 100, 18, 20})
	if ts.Slope != 2 || ts.Intercept != 10 {
		t.Errorf("Theil–Sen with one outlier: %+v, want slope 2 intercept 10", ts)
	}
}

// TestNeededSamplesIsClosedIntervalN: the samples that would decide a run
// (result.SamplesToDecide on the run's rule) are the larger of the count
// for two samples above the percentile and the first count whose interval
// is closed, as the closed form this package used before gave.
func TestNeededSamplesIsClosedIntervalN(t *testing.T) {
	t.Parallel()
	for _, conf := range []float64{0.8, 0.9, 0.95, 0.99} {
		for _, p := range []float64{1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99} {
			q := p / 100
			for _, minN := range []int{0, stats.MinSamples(p, 2)} {
				want := max(minN, stats.ClosedIntervalN(q, conf))
				if got := neededSamples(q, conf, minN, 1); got != int64(want) {
					t.Errorf("p(%v) at %v, min %d: needed %d, want %d", p, conf, minN, got, want)
				}
			}
		}
	}
	if got := neededSamples(1, 0.95, 0, 10); got != 0 {
		t.Errorf("p(100): needed %d, want 0 (no sample size bounds it)", got)
	}
}
