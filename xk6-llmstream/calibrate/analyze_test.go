package calibrate

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

const msNS = int64(time.Millisecond)

// synth makes n requests of k text events: the mock writes a role chunk at
// arrival+1 ms, text at arrival + 100 ms + i·20 ms; the helper starts each
// request 0.5 ms before the mock's arrival and reads event i lag(i) ns after
// its write. Requests start 10 ms apart, so at most a few are in flight.
func synth(n, k int, lag func(req, i int) int64) ([]records.Record, []mockllm.RequestLog) {
	var recs []records.Record
	var logs []mockllm.RequestLog
	for r := 0; r < n; r++ {
		arrival := int64(1_700_000_000_000_000_000) + int64(r)*10*msNS
		start := arrival - msNS/2
		l := mockllm.RequestLog{Seq: uint64(r), ArrivalNS: arrival, Stream: true, Status: 200, Outcome: "ok",
			EventWriteNS: []int64{arrival + msNS}, EventKinds: []string{"role"}}
		var textNS []int64
		prev := start
		for i := 0; i < k; i++ {
			w := arrival + 100*msNS + int64(i)*20*msNS
			l.EventWriteNS = append(l.EventWriteNS, w)
			l.EventKinds = append(l.EventKinds, "text")
			read := w + lag(r, i)
			textNS = append(textNS, read-prev)
			prev = read
		}
		ttft := textNS[0]
		recs = append(recs, records.Record{ID: "r", StartNS: start, Status: 200, TTFTNS: &ttft, TextNS: textNS,
			E2ENS: prev - start + msNS, OutputTokens: k, TokenSource: "usage"})
		logs = append(logs, l)
	}
	return recs, logs
}

// TestAnalyzeAgainstGroundTruth: the figures are the lags the synthetic
// client added, exactly.
func TestAnalyzeAgainstGroundTruth(t *testing.T) {
	t.Parallel()
	// Every event read 0.2 ms after its write, but event 5 of every request
	// 3 ms late (a CPU hiccup).
	recs, logs := synth(50, 10, func(_, i int) int64 {
		switch i {
		case 5:
			return 3 * msNS
		default:
			return msNS / 5
		}
	})
	idle := 0.8
	r := Analyze(recs, logs, &idle, 2, 20*time.Millisecond, DefaultLimits)
	if r.Requests != 50 || r.Matched != 50 || r.Events != 50*9 {
		t.Fatalf("requests %d, matched %d, events %d", r.Requests, r.Matched, r.Events)
	}
	// TTFT error: 0.5 ms to reach the mock + 0.2 ms to read the first text.
	if math.Abs(r.TTFTErrorP50-0.7) > 1e-9 || math.Abs(r.TTFTErrorP99-0.7) > 1e-9 {
		t.Errorf("TTFT error p50 %v p99 %v, want 0.7", r.TTFTErrorP50, r.TTFTErrorP99)
	}
	// 8 of 9 mid-stream events 0.2 ms late, one 3 ms: p50 0.2, p99 3.
	if math.Abs(r.LagP50-0.2) > 1e-9 || math.Abs(r.LagP99-3) > 1e-9 {
		t.Errorf("lag p50 %v p99 %v, want 0.2 and 3", r.LagP50, r.LagP99)
	}
	// The late event's gaps are 2.8 ms too long, then too short.
	if math.Abs(r.ITLErrorP99-2.8) > 1e-9 {
		t.Errorf("ITL error p99 %v, want 2.8", r.ITLErrorP99)
	}
	if r.PeakStreams < 2 || r.Bottleneck || !strings.Contains(r.Verdict, "good to ±3.00 ms at p99") {
		t.Errorf("peak %d, bottleneck %v, verdict %q", r.PeakStreams, r.Bottleneck, r.Verdict)
	}
}

// TestAnalyzeBottleneck: a machine without idle CPU, or whose lag is over
// the bound, is the bottleneck; the lag by streams in flight names where.
func TestAnalyzeBottleneck(t *testing.T) {
	t.Parallel()
	recs, logs := synth(40, 10, func(req, i int) int64 { return msNS / 5 })
	busy := 0.02
	r := Analyze(recs, logs, &busy, 2, 20*time.Millisecond, DefaultLimits)
	if !r.Bottleneck || !strings.Contains(r.Verdict, "this machine is the bottleneck above") || len(r.Reasons) != 1 {
		t.Errorf("busy CPU: bottleneck %v, verdict %q, reasons %v", r.Bottleneck, r.Verdict, r.Reasons)
	}
	// Idle CPU, but every mid-stream event 8 ms late (bound max(5 ms, 20/4)).
	recs, logs = synth(40, 10, func(req, i int) int64 { return 8 * msNS })
	idle := 0.9
	r = Analyze(recs, logs, &idle, 2, 20*time.Millisecond, DefaultLimits)
	if !r.Bottleneck || !strings.Contains(r.Reasons[0], "over the bound of 5.00 ms") {
		t.Errorf("late events: bottleneck %v, reasons %v", r.Bottleneck, r.Reasons)
	}
}

// TestAnalyzeUnmatched: a record with no mock request of its shape is not
// compared (and nothing is made up for it).
func TestAnalyzeUnmatched(t *testing.T) {
	t.Parallel()
	recs, logs := synth(3, 5, func(_, _ int) int64 { return msNS / 5 })
	logs = logs[:2]
	r := Analyze(recs, logs, nil, 2, 20*time.Millisecond, DefaultLimits)
	if r.Requests != 3 || r.Matched != 2 {
		t.Errorf("requests %d matched %d, want 3 and 2", r.Requests, r.Matched)
	}
	r = Analyze(recs, nil, nil, 2, 20*time.Millisecond, DefaultLimits)
	if r.Matched != 0 || !strings.Contains(r.Verdict, "no request could be compared") {
		t.Errorf("no log: %+v", r)
	}
}

// TestAnalyzeLagIntervalCorrelated: events written in the same 10 ms share a
// delay (a stall delays every stream at once), so a run's events are not
// independent draws. Over many synthetic runs, the p99 interval calibrate
// reports covers the true p99 of the lag process at about its nominal 95%;
// an interval that takes the events as independent covers it far less often.
func TestAnalyzeLagIntervalCorrelated(t *testing.T) {
	t.Parallel()
	const (
		runs        = 40
		stall, own  = 1.0, 0.1 // ms: a 10 ms tick's shared delay ~ Exp(1), an event's own ~ Exp(0.1)
		minCoverage = 0.8
	)
	// The true p99 of Exp(stall) + Exp(own): survival (a·e^(−x/a) − b·e^(−x/b))/(a − b).
	lo, hi := 0.0, 100.0
	for range 200 {
		x := (lo + hi) / 2
		if (stall*math.Exp(-x/stall)-own*math.Exp(-x/own))/(stall-own) > 0.01 {
			lo = x
		} else {
			hi = x
		}
	}
	truth := (lo + hi) / 2
	hits := 0
	for seed := range uint64(runs) {
		levels := map[int64]float64{}
		rng := rand.New(rand.NewPCG(seed, 3))
		recs, logs := synth(600, 20, func(req, i int) int64 {
			w := int64(req)*10*msNS + 100*msNS + int64(i)*20*msNS // the write time, from the run's start
			tick := w / (10 * msNS)
			l, ok := levels[tick]
			if !ok {
				l = rng.ExpFloat64() * stall
				levels[tick] = l
			}
			return int64((l + rng.ExpFloat64()*own) * float64(msNS))
		})
		r := Analyze(recs, logs, nil, 2, 20*time.Millisecond, DefaultLimits)
		if r.Events != 600*19 || r.LagP99CI[0] == nil || r.LagP99CI[1] == nil {
			t.Fatalf("seed %d: %d events, interval %v", seed, r.Events, r.LagP99CI)
		}
		if *r.LagP99CI[0] <= truth && truth <= *r.LagP99CI[1] {
			hits++
		}
	}
	c := float64(hits) / runs
	t.Logf("true p99 %.3f ms; the reported interval covered it in %d of %d runs", truth, hits, runs)
	if c < minCoverage {
		t.Errorf("the p99 interval covered the true p99 in %.2f of runs, want ≥ %.2f", c, minCoverage)
	}
}
