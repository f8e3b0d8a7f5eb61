package helper

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// TestScheduledTimeReachesRecordSamplesAndHealth: a request's
// scheduled_unix_ns goes into its record, adds llm_ttft_scheduled and
// llm_e2e_scheduled (lag + TTFT, lag + e2e), and its send lag into Health,
// whose verdict says when the replay was degraded.
func TestScheduledTimeReachesRecordSamplesAndHealth(t *testing.T) {
	t.Parallel()
	start := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		name     string
		lag      time.Duration
		degraded bool
	}{
		{"punctual", 2 * time.Millisecond, false},
		{"late", 700 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := &fakeStreamer{rec: &stream.Record{Dialect: stream.OpenAIChat, Status: 200, Start: start, Model: "m",
				HasTTFT: true, TTFT: 40 * time.Millisecond, E2E: 300 * time.Millisecond, TextEvents: 1}}
			h := NewHandler(WithStreamer(fs))
			body := fmt.Sprintf(`{"url":"http://127.0.0.1/x","body":{},"scheduled_unix_ns":%d}`, start.Add(-tc.lag).UnixNano())
			for range 20 {
				code, m := post(t, h, body, nil)
				if code != 200 {
					t.Fatalf("answer %d: %v", code, m)
				}
				got := samplesOf(t, m)
				lag := msFloat(tc.lag)
				if v := got[metrics.TTFTScheduled]; len(v) != 1 || v[0] != lag+40 {
					t.Fatalf("llm_ttft_scheduled %v, want [%v]", v, lag+40)
				}
				if v := got[metrics.E2EScheduled]; len(v) != 1 || v[0] != lag+300 {
					t.Fatalf("llm_e2e_scheduled %v, want [%v]", v, lag+300)
				}
				if v := got[metrics.TTFT]; len(v) != 1 || v[0] != 40 {
					t.Fatalf("llm_ttft %v, want [40]: the send-based TTFT has no wait", v)
				}
			}
			hs := h.Health()
			if hs.SendLagSamples != 20 || *hs.SendLagP99MS != msFloat(tc.lag) || *hs.SendLagMaxMS != msFloat(tc.lag) {
				t.Errorf("Health send lag %d samples, p99 %v, max %v; want 20 of %v", hs.SendLagSamples, *hs.SendLagP99MS, *hs.SendLagMaxMS, tc.lag)
			}
			if hs.Degraded != tc.degraded || (tc.degraded && !strings.Contains(hs.DegradedReason, "above 500 ms")) {
				t.Errorf("Health degraded %v %q, want %v", hs.Degraded, hs.DegradedReason, tc.degraded)
			}
		})
	}
	// The record carries the scheduled time; without one, nothing.
	p, rerr := parseStreamRequest([]byte(`{"url":"http://127.0.0.1/x","body":{},"scheduled_unix_ns":123}`), &config{})
	if rerr != nil {
		t.Fatal(rerr)
	}
	if rec := toRecord(&stream.Record{Start: start}, p, false, nil); rec.ScheduledNS != 123 {
		t.Errorf("record scheduled_ns %d, want 123", rec.ScheduledNS)
	}
	if _, rerr := parseStreamRequest([]byte(`{"url":"http://127.0.0.1/x","body":{},"scheduled_unix_ns":-5}`), &config{}); rerr == nil || !strings.Contains(rerr.msg, "scheduled_unix_ns") {
		t.Errorf("a negative scheduled_unix_ns: %v", rerr)
	}
	// Without a scheduled time: no scheduled samples, no send lag.
	h := NewHandler(WithStreamer(okStreamer()))
	_, m := post(t, h, `{"url":"http://127.0.0.1/x","body":{}}`, nil)
	if _, ok := samplesOf(t, m)[metrics.E2EScheduled]; ok {
		t.Error("llm_e2e_scheduled without a scheduled time")
	}
	if hs := h.Health(); hs.SendLagSamples != 0 || hs.Degraded {
		t.Errorf("Health without scheduled requests: %+v", hs)
	}
}
