package metrics

import (
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

func valueOf(t *testing.T, out []Series, metric string) (float64, bool) {
	t.Helper()
	for _, s := range out {
		if s.Metric == metric {
			if len(s.Values) != 1 {
				t.Fatalf("%s: %d values, want 1", metric, len(s.Values))
			}
			return s.Values[0], true
		}
	}
	return 0, false
}

func TestScheduledLatencies(t *testing.T) {
	ttft := int64(40e6)
	base := records.Record{StartNS: 1_700_000_000_250_000_000, TTFTNS: &ttft, E2ENS: 300e6, OutputTokens: 5}

	// Sent 250 ms after its scheduled time: the scheduled metrics include the wait.
	rec := base
	rec.ScheduledNS = base.StartNS - 250e6
	out := FromRecord(&rec, nil)
	if v, ok := valueOf(t, out, TTFTScheduled); !ok || v != 290 {
		t.Errorf("llm_ttft_scheduled = %v (present %v), want 290 (250 ms lag + 40 ms TTFT)", v, ok)
	}
	if v, ok := valueOf(t, out, E2EScheduled); !ok || v != 550 {
		t.Errorf("llm_e2e_scheduled = %v (present %v), want 550", v, ok)
	}
	if v, _ := valueOf(t, out, TTFT); v != 40 {
		t.Errorf("llm_ttft = %v, want 40: the send-based TTFT does not include the wait", v)
	}

	// A start that reads before its schedule (ms clock of the scheduler) has no lag.
	rec.ScheduledNS = base.StartNS + 400_000
	out = FromRecord(&rec, nil)
	if v, _ := valueOf(t, out, TTFTScheduled); v != 40 {
		t.Errorf("early start: llm_ttft_scheduled = %v, want 40", v)
	}

	// Closed-loop load: no scheduled time, no scheduled metrics.
	rec = base
	out = FromRecord(&rec, nil)
	for _, m := range []string{TTFTScheduled, E2EScheduled} {
		if _, ok := valueOf(t, out, m); ok {
			t.Errorf("%s present without a scheduled time", m)
		}
	}

	// Never sent: nothing measured from the schedule.
	rec = records.Record{ScheduledNS: 5, Error: &records.Error{Kind: "connect"}}
	if _, ok := valueOf(t, FromRecord(&rec, nil), E2EScheduled); ok {
		t.Error("llm_e2e_scheduled present for a request that was never sent")
	}
	// Failed without a first token: e2e from the schedule, no TTFT.
	rec = base
	rec.TTFTNS = nil
	rec.ScheduledNS = base.StartNS - 10e6
	out = FromRecord(&rec, nil)
	if _, ok := valueOf(t, out, TTFTScheduled); ok {
		t.Error("llm_ttft_scheduled present without a TTFT")
	}
	if v, _ := valueOf(t, out, E2EScheduled); v != 310 {
		t.Errorf("llm_e2e_scheduled = %v, want 310", v)
	}
}

func TestBuiltinHasScheduled(t *testing.T) {
	for _, m := range []string{TTFTScheduled, E2EScheduled} {
		b, ok := Lookup(m)
		if !ok || b.Type != Trend || !b.Time {
			t.Errorf("%s: %+v %v, want a time Trend in Builtin", m, b, ok)
		}
	}
}
