package metrics

import (
	"math"
	"slices"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// stalled is a 20-token answer, one token per event: TTFT 100 ms, then gaps
// of 10 ms with one 260 ms stall before token `at` (2-based).
func stalled(at int) *records.Record {
	ttft := int64(100e6)
	gaps := []int64{ttft}
	for i := 2; i <= 20; i++ {
		g := int64(10e6)
		if i == at {
			g = 260e6
		}
		gaps = append(gaps, g)
	}
	return &records.Record{Status: 200, TTFTNS: &ttft, TextNS: gaps, OutputTokens: 20, StartNS: 1, E2ENS: 500e6}
}

// TestFluidityEarlyVsLateStall: the same gaps (so the same P90 gap) give a
// lower fluidity when the stall comes early, before slack has built up
// (Etalon's point): with a 200 ms TTFT deadline and 20 ms per token, the
// early stall misses one deadline of 20 (0.95), the late one none (1.00);
// the early request fails deadline goodput, the late one meets it.
func TestFluidityEarlyVsLateStall(t *testing.T) {
	t.Parallel()
	d := &Deadline{TTFTMS: 200, PerTokenMS: 20}
	early, late := stalled(3), stalled(19)
	p90 := func(r *records.Record) float64 {
		xs := []float64{}
		for _, g := range r.TextNS[1:] {
			xs = append(xs, MS(g))
		}
		slices.Sort(xs)
		v, _ := stats.Percentile(xs, 90)
		return v
	}
	if p90(early) != p90(late) {
		t.Fatalf("P90 gaps differ: %v, %v", p90(early), p90(late))
	}
	re, ok1 := d.Judge(early)
	rl, ok2 := d.Judge(late)
	if !ok1 || !ok2 || re.Tokens != 20 || rl.Tokens != 20 {
		t.Fatalf("judged %v %v, tokens %d %d", ok1, ok2, re.Tokens, rl.Tokens)
	}
	if math.Abs(re.Fluidity-0.95) > 1e-12 || rl.Fluidity != 1 || re.Met || !rl.Met {
		t.Errorf("early: fluidity %v met %v; late: fluidity %v met %v; want 0.95 false, 1 true", re.Fluidity, re.Met, rl.Fluidity, rl.Met)
	}
}

// TestDeadlineRules: hand-worked token schedules, multi-token events, the
// reset after a miss, and the verdict through FromRecord and SLO.Met.
func TestDeadlineRules(t *testing.T) {
	t.Parallel()
	d := &Deadline{TTFTMS: 100, PerTokenMS: 10}
	ttft := int64(150e6)
	// Tokens at 150 (late: deadline 100; next due 160), 150, 150 (a 3-token
	// event: due 160, 170 — met), 165 (due 180: met), 300 (due 190: missed).
	rec := &records.Record{Status: 200, TTFTNS: &ttft, TextNS: []int64{150e6, 15e6, 135e6}, TextTokens: []int{3, 1, 1}, OutputTokens: 5, StartNS: 1, E2ENS: 300e6}
	r, ok := d.Judge(rec)
	if !ok || r.Tokens != 5 || math.Abs(r.Fluidity-3.0/5) > 1e-12 || r.Met {
		t.Errorf("judge %+v %v, want 5 tokens, fluidity 0.6, not met", r, ok)
	}
	failed := &records.Record{Status: 500, Error: &records.Error{Kind: "http_5xx"}}
	if _, ok := d.Judge(failed); ok {
		t.Errorf("a failed request was judged")
	}
	slo := &SLO{Deadline: d}
	if err := slo.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (&SLO{Deadline: &Deadline{TTFTMS: 1}}).Validate(); err == nil {
		t.Errorf("a deadline without per_token_ms was accepted")
	}
	// FromRecord and Met: the request misses; one that meets every deadline
	// (tokens at 50, 55, 60) passes.
	ok50 := int64(50e6)
	good := &records.Record{Status: 200, TTFTNS: &ok50, TextNS: []int64{50e6, 5e6, 5e6}, OutputTokens: 3, StartNS: 1, E2ENS: 70e6}
	for _, c := range []struct {
		rec  *records.Record
		want bool
	}{{rec, false}, {good, true}, {failed, false}} {
		ss := FromRecord(c.rec, &Options{SLO: slo})
		var met, dm []float64
		for _, s := range ss {
			switch s.Metric {
			case SLOMet:
				met = s.Values
			case DeadlineMet:
				dm = s.Values
			}
		}
		if len(met) != 1 || len(dm) != 1 || (met[0] == 1) != c.want || (dm[0] == 1) != c.want {
			t.Errorf("slo met %v, deadline met %v; want %v", met, dm, c.want)
		}
	}
}
