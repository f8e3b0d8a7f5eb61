package scripts

import (
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// unsortedLagP99 is the send lag bound of issue #38's done-when for an
// unsorted trace: 99% of requests reach the mock within 20 ms of their
// trace time.
const unsortedLagP99 = 20.0 // ms

// TestUnsortedTraceReplaysWithRealK6: a Mooncake trace concatenated from
// two collectors (400 requests 20 ms apart: collector A's requests, then B's, each in its own time
// order, interleaved in time; the measurement was 400 requests) builds into a sorted dataset and replays with
// every request at its trace time: the mock's log puts each arrival within
// the stated lag of its time, none early.
func TestUnsortedTraceReplaysWithRealK6(t *testing.T) {
	k6 := k6Binary(t)
	var a, b []traceLine
	for i := range 400 {
		q := traceLine{Timestamp: int64(i * 20), Input: 20 + i, Output: 3}
		if i%2 == 0 {
			a = append(a, q)
		} else {
			b = append(b, q)
		}
	}
	path, entries := buildReplayDataset(t, append(a, b...), 512)
	for i, e := range entries {
		if want := float64(i * 20); *e.AtMS != want || e.InputTokens != 20+i {
			t.Fatalf("entry %d: at_ms %v, %d input tokens; want %v and %d (the trace sorted)", i+1, *e.AtMS, e.InputTokens, want, 20+i)
		}
	}
	cfg := mockllm.Config{Seed: 1, Tokenizer: "cl100k_base",
		Default: mockllm.ModelConfig{Prefill: mockllm.Prefill{Base: 2 * time.Millisecond}, ITL: mockllm.ITL{Base: time.Millisecond}}}
	// The lag is the load generator's timer accuracy on this machine, shared
	// by ~8 jobs on two cores: a run whose p99 is over the bound is run once
	// more, and both figures are logged; two over it fail.
	for try := 1; ; try++ {
		r := runReplay(t, k6, cfg, map[string]string{"LLM_DATASET": path})
		seen, lags := r.lags(t, entries, 1)
		if len(seen) != len(entries) {
			t.Fatalf("the mock saw %d of %d requests", len(seen), len(entries))
		}
		if lags[0] < -2 {
			t.Errorf("a request reached the mock %.2f ms before its trace time", -lags[0])
		}
		p50, p99 := pct(lags, 50), pct(lags, 99)
		t.Logf("run %d: %d requests of an unsorted trace: send lag at the mock p50 %.2f ms, p99 %.2f ms, max %.2f ms, min %.2f ms",
			try, len(lags), p50, p99, lags[len(lags)-1], lags[0])
		if p99 <= unsortedLagP99 {
			return
		}
		for _, e := range entries {
			if l := float64(seen[e.ID].ArrivalNS)/1e6 - r.startMS - *e.AtMS; l > unsortedLagP99 {
				t.Logf("%s at %v ms: lag %.1f ms", e.ID, *e.AtMS, l)
			}
		}
		if try == 2 {
			t.Fatalf("send lag p99 %.2f ms: above %v ms in two runs", p99, unsortedLagP99)
		}
	}
}
