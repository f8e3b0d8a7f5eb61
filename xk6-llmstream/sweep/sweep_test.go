package sweep

import (
	"context"
	"errors"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

// standIn is a sweep whose k6 is the test binary acting as the stand-in k6
// (fakek6_test.go), run through the runner as a real k6 would be.
type standIn struct {
	t   testing.TB
	env map[string]string
	dir string
}

func newStandIn(t testing.TB, env map[string]string) *standIn {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &standIn{t: t, dir: t.TempDir(), env: map[string]string{
		"K6_BIN": bin, fakeK6Env: "1", "LLM_BASE_URL": "", "LLM_RATE": "", "LLM_VUS": "",
	}}
	for k, v := range env {
		s.env[k] = v
	}
	return s
}

func (s *standIn) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := s.env[k]; !ok {
			env = append(env, kv)
		}
	}
	for k, v := range s.env {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// run sweeps with the plan and SLO.
func (s *standIn) run(mode Mode, plan Plan, slo []string, maxFail float64, sigs <-chan os.Signal) (*Result, error) {
	s.t.Helper()
	checks, err := ParseSLO(slo, maxFail)
	if err != nil {
		s.t.Fatal(err)
	}
	d, err := time.ParseDuration(s.duration())
	if err != nil {
		s.t.Fatal(err)
	}
	return Execute(context.Background(), Config{
		Spec: DefaultSpec(mode, checks), Plan: plan, OutDir: s.dir, Script: "capacity.js", Signals: sigs, LevelDuration: d,
		Exec: K6{Mode: mode, Script: "capacity.js", Duration: s.duration(), Env: s.environ()},
	})
}

func (s *standIn) duration() string {
	if d := s.env["LLM_DURATION"]; d != "" {
		return d
	}
	return "20s"
}

// capacity is the simulated server's capacity in requests per second:
// slots / service time, the mock's queueing model.
func capacity(slots int, prefill, itl time.Duration, tokens int) float64 {
	return mockllm.Capacity(slots, prefill, itl, tokens)
}

func offered(res *Result) []float64 {
	var out []float64
	for _, l := range res.Levels {
		out = append(out, l.Offered)
	}
	return out
}

func TestSearchFindsCapacity(t *testing.T) {
	t.Parallel()
	// 4 slots, 20 ms + 7 × 10 ms = 90 ms a request: 44.4 req/s.
	c := capacity(4, 20*time.Millisecond, 10*time.Millisecond, 8)
	s := newStandIn(t, nil)
	plan := Search{Mode: Rate, Min: 4, Max: 64, Resolution: 0.05, Budget: 12}
	res, err := s.run(Rate, plan, []string{"llm_ttft: p(90)<100"}, 0.05, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("levels %v; stopped: %s", offered(res), res.Stopped)
	if res.MaxPassing == nil || math.Abs(*res.MaxPassing-c) > 0.1*c {
		t.Fatalf("max passing %v, want within ±10%% of the capacity %.2f", res.MaxPassing, c)
	}
	if res.Saturation == nil || *res.Saturation <= c || *res.Saturation > c*(1+2*plan.Resolution) {
		t.Errorf("lowest saturated level %v, want just above the capacity %.2f", res.Saturation, c)
	}
	for _, l := range res.Levels {
		switch {
		case l.Offered < c && !l.Pass:
			t.Errorf("level %g below the capacity %.2f: %s %v %+v", l.Offered, c, l.Verdict, l.Saturation, l.Limits)
		case l.Offered > c && l.Verdict != result.Saturated:
			t.Errorf("level %g above the capacity %.2f: %s, want saturated", l.Offered, c, l.Verdict)
		}
		if l.Offered < c && math.Abs(*l.AchievedRPS-l.Offered) > 1e-6*l.Offered {
			t.Errorf("level %g: achieved %v req/s, want the offered rate", l.Offered, *l.AchievedRPS)
		}
	}
	if len(res.Levels) > plan.Budget {
		t.Errorf("%d levels ran, budget %d", len(res.Levels), plan.Budget)
	}
	if !strings.Contains(res.Stopped, "resolution") {
		t.Errorf("stopped %q, want the resolution reached", res.Stopped)
	}
	for _, l := range res.Levels {
		if _, err := os.Stat(l.File); err != nil || filepath.Dir(l.File) != s.dir {
			t.Errorf("level %g: output file %q: %v", l.Offered, l.File, err)
		}
	}
}

func TestFixedStopsClimbingAtSaturation(t *testing.T) {
	t.Parallel()
	s := newStandIn(t, nil) // capacity 44.4 req/s
	res, err := s.run(Rate, Fixed{Levels: []float64{10, 20, 40, 50, 60, 80}}, []string{"llm_ttft: p(90)<1000"}, 0.05, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := offered(res); len(got) != 4 || got[3] != 50 {
		t.Fatalf("levels run %v, want 10 20 40 50 (stop climbing at the first saturated one)", got)
	}
	if l := res.Levels[3]; l.Verdict != result.Saturated || !strings.Contains(strings.Join(l.Saturation, " "), "below the offered") {
		t.Errorf("level 50: %s %v, want saturated with the achieved rate below the offered one", l.Verdict, l.Saturation)
	}
	if !strings.Contains(res.Stopped, "stopped climbing") {
		t.Errorf("stopped %q", res.Stopped)
	}
	if res.MaxPassing == nil || *res.MaxPassing != 40 {
		t.Errorf("max passing %v, want 40", res.MaxPassing)
	}
}

func TestSearchBudget(t *testing.T) {
	t.Parallel()
	s := newStandIn(t, nil)
	res, err := s.run(Rate, Search{Mode: Rate, Min: 4, Max: 1000, Resolution: 0.01, Budget: 4}, nil, 0.05, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := offered(res); len(got) != 4 || got[3] != 32 {
		t.Errorf("levels %v, want 4 8 16 32 and no more", got)
	}
	if !strings.Contains(res.Stopped, "budget") {
		t.Errorf("stopped %q, want the budget", res.Stopped)
	}
}

func TestInconclusiveDoesNotPass(t *testing.T) {
	t.Parallel()
	// 2 req/s for 10 s: 20 TTFT samples, too few to bound a p(99) from above.
	s := newStandIn(t, map[string]string{"LLM_DURATION": "10s"})
	res, err := s.run(Rate, Search{Mode: Rate, Min: 2, Max: 64, Resolution: 0.05, Budget: 5}, []string{"llm_ttft: p(99)<100"}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := res.Levels[0]
	if l.Verdict != result.Inconclusive || l.Pass || l.Limits[0].CI.High != nil {
		t.Fatalf("level 2: %s, limit %+v: want inconclusive with an open upper bound", l.Verdict, l.Limits[0])
	}
	if len(res.Levels) != 1 || res.MaxPassing != nil || !strings.Contains(res.Stopped, "inconclusive") {
		t.Errorf("levels %v, max passing %v, stopped %q: an inconclusive lowest level ends the search with none passing",
			offered(res), res.MaxPassing, res.Stopped)
	}
	if !strings.Contains(Answer(res), "no level met the SLO") {
		t.Errorf("answer %q", Answer(res))
	}
}

func TestVUsPlateauIsSaturation(t *testing.T) {
	t.Parallel()
	s := newStandIn(t, nil) // 4 slots: more than 4 VUs only queue
	res, err := s.run(VUs, Search{Mode: VUs, Min: 1, Max: 64, Resolution: 0.05, Budget: 12}, []string{"llm_ttft: p(90)<1000"}, 0.05, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("levels %v; stopped: %s", offered(res), res.Stopped)
	if res.MaxPassing == nil || *res.MaxPassing != 4 {
		t.Fatalf("max passing %v VUs, want the 4 slots", res.MaxPassing)
	}
	for _, l := range res.Levels {
		if l.Offered > 4 && (l.Verdict != result.Saturated || !strings.Contains(strings.Join(l.Saturation, " "), "more VUs")) {
			t.Errorf("%g VUs: %s %v, want saturated (no more throughput)", l.Offered, l.Verdict, l.Saturation)
		}
	}
}

func TestK6ExitCodes(t *testing.T) {
	t.Parallel()
	levels := Fixed{Levels: []float64{4, 5, 6, 7}}
	t.Run("thresholds failed is data", func(t *testing.T) {
		t.Parallel()
		s := newStandIn(t, map[string]string{fakeExitAt: "5:99"})
		res, err := s.run(Rate, levels, nil, 0.05, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Levels) != 4 || res.Levels[1].K6ExitCode != 99 || !res.Levels[1].Pass {
			t.Errorf("levels %v, level 2 exit %d pass %v", offered(res), res.Levels[1].K6ExitCode, res.Levels[1].Pass)
		}
	})
	t.Run("other codes abort", func(t *testing.T) {
		t.Parallel()
		s := newStandIn(t, map[string]string{fakeExitAt: "5:107"})
		res, err := s.run(Rate, levels, nil, 0.05, nil)
		var ae *AbortError
		if !errors.As(err, &ae) || ae.Code != 107 {
			t.Fatalf("error %v, want an abort with k6's code 107", err)
		}
		if res == nil || len(res.Levels) != 2 || res.K6ExitCode != 107 || res.Levels[1].Pass || res.MaxPassing == nil || *res.MaxPassing != 4 {
			t.Errorf("partial result %+v", res)
		}
		// The aborted level's summary counts the requests its file holds:
		// 5 req/s for 20 s.
		if l := res.Levels[1]; l.Requests != 100 || l.Verdict != result.Fail {
			t.Errorf("aborted level: %d requests, %s; want the file's 100, fail", l.Requests, l.Verdict)
		}
	})
}

func TestSignalEndsTheSweep(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "started")
	s := newStandIn(t, map[string]string{fakeWaitSig: marker})
	sigs := make(chan os.Signal, 1)
	go func() {
		for {
			if _, err := os.Stat(marker); err == nil {
				sigs <- os.Interrupt
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	res, err := s.run(Rate, Fixed{Levels: []float64{4, 8}}, nil, 0.05, sigs)
	var ae *AbortError
	if !errors.As(err, &ae) || ae.Code != 130 {
		t.Fatalf("error %v, want an abort with code 130", err)
	}
	if len(res.Levels) != 1 || res.Levels[0].Pass || !strings.Contains(res.Stopped, "interrupted") {
		t.Errorf("levels %v stopped %q: want the one interrupted level, not passing", offered(res), res.Stopped)
	}
}

// TestIterationsStopEarly: iterations throw from 3 s into a 12 s level at 4
// req/s, so 12 requests end in under 3 s. The level does not pass: its
// achieved rate is over the whole level (1 req/s), and k6's iterations
// show 36 iterations that made no request.
func TestIterationsStopEarly(t *testing.T) {
	t.Parallel()
	s := newStandIn(t, map[string]string{"LLM_DURATION": "12s", fakeThrow: "3s"})
	res, err := s.run(Rate, Fixed{Levels: []float64{4}}, []string{"llm_ttft: p(50)<1000"}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := res.Levels[0]
	if l.Pass || res.MaxPassing != nil || !strings.Contains(Answer(res), "no level met the SLO") {
		t.Fatalf("level 4: %s, answer %q: want the level not to pass", l.Verdict, Answer(res))
	}
	if l.Requests != 12 || l.AchievedRPS == nil || *l.AchievedRPS != 1 || l.LevelS != 12 {
		t.Errorf("requests %d, achieved %s req/s over %g s: want 12, 1 over 12", l.Requests, fmtPtr(l.AchievedRPS), l.LevelS)
	}
	if l.Verdict != result.Fail || l.Iterations == nil || *l.Iterations != 48 || l.IterationErrors != 36 ||
		len(l.Incomplete) != 2 || !strings.Contains(l.Incomplete[0], "36 iterations made no request") {
		t.Errorf("verdict %s, iterations %v (%d errors), incomplete %q", l.Verdict, l.Iterations, l.IterationErrors, l.Incomplete)
	}
}
