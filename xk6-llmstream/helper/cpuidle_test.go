package helper

import (
	"context"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// fakeCPU are CPU counters that advance by one reading's worth each Sample:
// 100 hundredths of CPU time, idle of them idle.
type fakeCPU struct {
	t    headroom.CPUTimes
	idle uint64
}

func (f *fakeCPU) read() (headroom.CPUTimes, error) {
	f.t.Total += 100
	f.t.Idle += f.idle
	return f.t, nil
}

// samplingStreamer takes reads of the CPU sampler while "streaming", as the
// sampler's goroutine does while a real stream runs.
type samplingStreamer struct {
	h     *Handler
	reads int
}

func (s *samplingStreamer) Do(context.Context, *stream.Request) *stream.Record {
	for range s.reads {
		_ = s.h.cpu.Sample()
	}
	return &stream.Record{Status: 200, HasTTFT: true, TTFT: 1, TextEvents: 1}
}

// TestAnswersCarryCPUIdle: each answer carries the machine's idle share while
// its request ran (llm_client_cpu_idle), none for a request shorter than one
// reading, and Health judges the median with the load-generator rule.
func TestAnswersCarryCPUIdle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		idle    uint64 // of 100 per reading
		reads   int
		limited bool
	}{
		{"idle machine", 80, 3, false},
		{"saturated machine", 5, 3, true},
		{"requests shorter than a reading", 5, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cpu := &fakeCPU{idle: tc.idle}
			st := &samplingStreamer{reads: tc.reads}
			h := NewHandler(WithStreamer(st), WithCPUCounters(cpu.read))
			st.h = h
			if err := h.cpu.Sample(); err != nil {
				t.Fatal(err)
			}
			want := float64(tc.idle) / 100
			for range headroom.MinSamples {
				code, m := post(t, h, `{"url":"http://127.0.0.1/x","body":{}}`, nil)
				if code != 200 {
					t.Fatalf("answer %d: %v", code, m)
				}
				got := samplesOf(t, m)[metrics.ClientCPUIdle]
				switch {
				case tc.reads == 0 && len(got) != 0:
					t.Fatalf("llm_client_cpu_idle %v for a request without a reading, want none", got)
				case tc.reads > 0 && (len(got) != 1 || got[0] != want):
					t.Fatalf("llm_client_cpu_idle %v, want [%v]", got, want)
				}
			}
			hs := h.Health()
			if tc.reads == 0 {
				if hs.CPUIdleSamples != 0 || hs.CPUIdleP50 != nil {
					t.Errorf("Health %d idle samples (p50 %v), want none", hs.CPUIdleSamples, hs.CPUIdleP50)
				}
			} else if hs.CPUIdleSamples != int64(headroom.MinSamples) || hs.CPUIdleP50 == nil || *hs.CPUIdleP50 != want {
				t.Errorf("Health %d idle samples, p50 %v; want %d at %v", hs.CPUIdleSamples, hs.CPUIdleP50, headroom.MinSamples, want)
			}
			if hs.Limited != tc.limited || (tc.limited && !strings.Contains(hs.Reason, "5% idle")) {
				t.Errorf("Health limited %v %q, want %v", hs.Limited, hs.Reason, tc.limited)
			}
		})
	}
}
