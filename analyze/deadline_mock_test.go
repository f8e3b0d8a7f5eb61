package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// lockedBuffer is the mock's ground-truth log, written from its handlers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// The deadline of the stall runs: the first token by 1 s, then one per
// 200 ms. The mock answers 20 tokens, 50 ms to the first, 10 ms apart, with
// one 2 s pause: early (before token 3) it misses token 3's deadline (1.4 s)
// by ~670 ms and the next are met again (fluidity 19/20, deadline missed);
// late (before token 19) the tokens have banked slack and meet every deadline
// (token 19 at ~2.23 s, due at 4.6 s: fluidity 1, met). The smallest margin,
// token 4 after the early stall, is 190 ms: far above a busy machine's
// scheduling noise.
const (
	stallDeadlineSLO = "deadline.ttft=1s,deadline.perToken=200ms"
	stallScript      = `
const c = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: 'k', model: 'm',
  slo: { deadline: { ttft: '1s', perToken: '200ms' } } });
export default function () { c.chat({ messages: [{ role: 'user', content: 'x' }], max_tokens: 20 }); }
`
	stallPause = 2 * time.Second
	// stallRequests is each run's requests, 2 VUs.
	stallRequests = 4
)

// stallRun runs the mock with the pause placed at the share at and returns
// the records file, the module's per-request deadline samples (by request
// id) and the mock's scheduled gaps between text events (ground truth, ms).
func stallRun(t *testing.T, at float64) (recFile string, module map[string][2]float64, gaps []float64) {
	t.Helper()
	log := &lockedBuffer{}
	model := mockllm.ModelConfig{
		Prefill:      mockllm.Prefill{Base: 50 * time.Millisecond},
		ITL:          mockllm.ITL{Base: 10 * time.Millisecond},
		OutputTokens: mockllm.FixedCount(20),
		Faults:       mockllm.Faults{Pause: 1, PauseDuration: stallPause, PauseAt: at},
	}
	recFile, res := mockRun(t, mockllm.Config{Seed: 7, Log: log, Default: model}, stallScript, 2, stallRequests)
	module = map[string][2]float64{}
	for _, s := range res.Samples {
		id := s.Metadata[metrics.RequestIDMetadata]
		v := module[id]
		switch s.Metric {
		case metrics.DeadlineMet:
			v[0] = s.Value
		case metrics.Fluidity:
			v[1] = s.Value
		default:
			continue
		}
		module[id] = v
	}
	sc := bufio.NewScanner(&log.b)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l mockllm.RequestLog
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		var prev int64 = -1
		for i, k := range l.EventKinds {
			if k != "text" {
				continue
			}
			if prev >= 0 {
				gaps = append(gaps, float64(l.EventDueNS[i]-prev)/1e6)
			}
			prev = l.EventDueNS[i]
		}
	}
	slices.Sort(gaps)
	return recFile, module, gaps
}

// analyzedDeadline is analyze's recomputation: each record's llm_deadline_met
// and llm_fluidity, by request id, as the reader makes them with the deadline
// of --slo.
func analyzedDeadline(t *testing.T, recFile string) map[string][2]float64 {
	t.Helper()
	d, _, err := metrics.ParseDeadline([]string{stallDeadlineSLO})
	if err != nil {
		t.Fatal(err)
	}
	r := rundata.NewReader(rundata.Selection{Metrics: []string{metrics.DeadlineMet, metrics.Fluidity}},
		[]rundata.Input{{Path: recFile, Label: recFile}}, rundata.Options{Metadata: true})
	r.SetDeadline(d)
	out := map[string][2]float64{}
	if err := r.Each(func(_ int, _ *rundata.Group, p *k6json.Point) error {
		id, _ := p.MetadataValue(metrics.RequestIDMetadata)
		v := out[id]
		if p.Metric == metrics.DeadlineMet {
			v[0] = p.Value
		} else {
			v[1] = p.Value
		}
		out[id] = v
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeadlineEarlyVsLateStallAgainstMock is issue 37's bar for deadline
// metrics: two mock runs whose one pause comes early or late in every answer
// have the same P90 gap (the mock's schedule, ground truth) and the fluidity
// order Etalon predicts, early below late, in analyze summary --slo
// 'deadline.…' on the records; deadline goodput counts none early and all
// late; and for every request the module's llm_deadline_met and llm_fluidity
// (the helper's samples in k6) equal analyze's recomputation from the records.
func TestDeadlineEarlyVsLateStallAgainstMock(t *testing.T) {
	t.Parallel()
	type outcome struct {
		p90, fluidity float64
		good, n       int
	}
	got := map[string]outcome{}
	for name, at := range map[string]float64{"early": 0.1, "late": 0.9} {
		recFile, module, gaps := stallRun(t, at)
		if len(gaps) != stallRequests*19 {
			t.Fatalf("%s: %d scheduled gaps, want %d answers × 19", name, len(gaps), stallRequests)
		}
		p90, _ := stats.Percentile(gaps, 90)
		// Every request: the module's verdict is analyze's.
		analyzed := analyzedDeadline(t, recFile)
		if len(module) != stallRequests || len(analyzed) != stallRequests {
			t.Fatalf("%s: %d requests with module samples, %d analyzed; want %d", name, len(module), len(analyzed), stallRequests)
		}
		for id, m := range module {
			if a, ok := analyzed[id]; !ok || a != m {
				t.Errorf("%s: request %s: module (met, fluidity) %v, analyze %v", name, id, m, a)
			}
		}
		code, out, errOut := run(t, nil, "summary", "--format", "json", "--slo", stallDeadlineSLO, recFile)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		var doc struct {
			Metrics []struct {
				Name   string `json:"name"`
				Groups []struct {
					Count int     `json:"count"`
					Mean  float64 `json:"mean"`
				} `json:"groups"`
			} `json:"metrics"`
			Throughput []struct {
				Source string `json:"goodput_source"`
				Good   int    `json:"good"`
			} `json:"throughput"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		o := outcome{p90: p90, fluidity: -1}
		for _, m := range doc.Metrics {
			if m.Name == metrics.Fluidity && len(m.Groups) == 1 {
				o.fluidity, o.n = m.Groups[0].Mean, m.Groups[0].Count
			}
		}
		if len(doc.Throughput) != 1 || doc.Throughput[0].Source != "slo" {
			t.Fatalf("%s: throughput %+v, want one group judged by the slo", name, doc.Throughput)
		}
		o.good = doc.Throughput[0].Good
		got[name] = o
		t.Logf("%s: P90 gap %.1f ms (scheduled), fluidity mean %.3f over %d requests, %d good (of the %d counted)", name, p90, o.fluidity, o.n, o.good, stallRequests-1)
	}
	early, late := got["early"], got["late"]
	if early.p90 != late.p90 {
		t.Errorf("scheduled P90 gaps differ: early %v, late %v", early.p90, late.p90)
	}
	if early.n != stallRequests || late.n != stallRequests || math.Abs(early.fluidity-0.95) > 1e-9 || math.Abs(late.fluidity-1) > 1e-9 {
		t.Errorf("fluidity: early %v (n %d), late %v (n %d); want 0.95 < 1 (Etalon's order)", early.fluidity, early.n, late.fluidity, late.n)
	}
	// The window counts the requests that ended after the first.
	if early.good != 0 || late.good != stallRequests-1 {
		t.Errorf("deadline goodput: %d good early, %d late; want 0 and %d", early.good, late.good, stallRequests-1)
	}
}

// TestSLODeadlineNeedsRecords: a deadline on k6's output alone (no token
// arrivals) is refused, naming the records; a half deadline is a usage error.
func TestSLODeadlineNeedsRecords(t *testing.T) {
	t.Parallel()
	code, _, errOut := run(t, nil, "summary", "--slo", stallDeadlineSLO, "../testdata/k6/k6v2_llm_synthetic.json.gz")
	if code == 0 || !strings.Contains(errOut, "records") {
		t.Errorf("k6 JSON only: exit %d, %q; want a failure naming the records", code, errOut)
	}
	code, _, errOut = run(t, nil, "summary", "--slo", "deadline.ttft=1s", "../testdata/k6/k6v2_llm_synthetic.json.gz")
	if code != 2 || !strings.Contains(errOut, "deadline.perToken") {
		t.Errorf("half deadline: exit %d, %q; want 2 naming deadline.perToken", code, errOut)
	}
}
