package main

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// mockRecords runs a k6 script under k6sim against the mock (cfg) through
// a helper writing records, and returns the records file.
func mockRecords(t *testing.T, cfg mockllm.Config, body string, vus, iterations int) string {
	t.Helper()
	m, err := mockllm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m)
	t.Cleanup(ts.Close)
	recFile := filepath.Join(t.TempDir(), "run.records.jsonl")
	rw, err := helper.CreateRecords(recFile)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := helper.Start("127.0.0.1:0", helper.WithRecords(rw))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := filepath.Abs("../xk6-llmstream/js/llmstream.js")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "test.js")
	src := "import { Client } from 'file://" + filepath.ToSlash(mod) + "';\n" + body
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := k6sim.Run(ctx, k6sim.Config{Script: path, VUs: vus, Iterations: iterations, Sleep: func(time.Duration) {},
		Env: map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": ts.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if err := hs.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := helper.CloseRecords(rw); err != nil {
		t.Fatal(err)
	}
	return recFile
}

func readRecords(t *testing.T, path string) []*records.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*records.Record
	if _, err := records.ScanWith(f, records.ScanOptions{}, func(r *records.Record) error {
		c := *r // the scanner reuses its record
		c.TextNS, c.TextTokens = slices.Clone(r.TextNS), slices.Clone(r.TextTokens)
		out = append(out, &c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// recomputed is each tool's current published formula worked out from the
// records' raw fields (event times, first event, token counts), written
// apart from analyze/definitions: vLLM (vllm/benchmarks/serve.py,
// endpoint_request_func.py), AIPerf 0.8.0 (metrics/types/*.py), GuideLLM
// v0.7.3 (schemas/request_stats.py), inference-perf v0.6.1
// (reportgen/base.py). The key is "tool/quantity".
func recomputed(recs []*records.Record) map[string][]float64 {
	out := map[string][]float64{}
	add := func(k string, v ...float64) { out[k] = append(out[k], v...) }
	for _, r := range recs {
		if !r.OK() || len(r.TextNS) == 0 {
			continue
		}
		var at []float64 // text event times from the start, ms
		sum := int64(0)
		for _, g := range r.TextNS {
			sum += g
			at = append(at, float64(sum)/1e6)
		}
		first, last, n, e2e := at[0], at[len(at)-1], float64(r.OutputTokens), float64(r.E2ENS)/1e6
		chunk := float64(*r.FirstEventNS) / 1e6 // the role-only chunk
		// vLLM: chunks with choices, the role-only one first.
		add("vllm/ttft", chunk)
		add("vllm/itl", first-chunk)
		for i := 1; i < len(at); i++ {
			add("vllm/itl", at[i]-at[i-1])
			add("aiperf/icl", at[i]-at[i-1])
		}
		add("vllm/tpot", (last-chunk)/(n-1))
		add("vllm/e2e", last)
		if r.ScheduledNS > 0 { // open-loop only: e2el_including_client_queue
			add("vllm/e2el_incl_queue", last+float64(r.StartNS-r.ScheduledNS)/1e6)
		}
		// AIPerf: content responses; request latency at the last one.
		add("aiperf/ttft", first)
		add("aiperf/ttfo", first)
		add("aiperf/itl", (last-first)/(n-1))
		add("aiperf/e2e", last)
		// GuideLLM: TPOT from the request start.
		add("guidellm/ttft", first)
		add("guidellm/itl", (last-first)/(n-1))
		add("guidellm/tpot", last/n)
		add("guidellm/e2e", e2e)
		// inference-perf: every token at its chunk's time.
		var tok []float64
		for i, k := range r.TextTokens {
			for range k {
				tok = append(tok, at[i])
			}
		}
		add("inference-perf/ttft", tok[0])
		for i := 1; i < len(tok); i++ {
			add("inference-perf/itl", tok[i]-tok[i-1])
		}
		add("inference-perf/tpot", (tok[len(tok)-1]-tok[0])/(n-1))
		add("inference-perf/ntpot", e2e/n)
		add("inference-perf/e2e", e2e)
	}
	return out
}

// TestDefinitionsAgainstMock is issue 37's bar: on a run against the mock
// with a role-only first chunk and 3 tokens per event, every row of
// summary --definitions vllm,aiperf,guidellm,inference-perf --format json
// equals that tool's formula recomputed from the records, p50 and p99.
func TestDefinitionsAgainstMock(t *testing.T) {
	t.Parallel()
	model := mockllm.ModelConfig{
		Prefill:        mockllm.Prefill{Base: 4 * time.Millisecond, Jitter: mockllm.Jitter{Dist: "lognormal", Sigma: 0.5}},
		ITL:            mockllm.ITL{Base: 2 * time.Millisecond, Jitter: mockllm.Jitter{Dist: "lognormal", Sigma: 0.5}},
		OutputTokens:   mockllm.FixedCount(10),
		TokensPerEvent: mockllm.TokensPerEvent{Min: 3, Max: 3},
	}
	recFile := mockRecords(t, mockllm.Config{Seed: 37, Default: model}, `
const c = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: 'k', model: 'm',
  body: { stream_options: { include_usage: true, continuous_usage_stats: true } } });
export default function () { c.chat({ messages: [{ role: 'user', content: 'x' }], max_tokens: 10 }); }
`, 2, 20)
	recs := readRecords(t, recFile)
	for _, r := range recs { // the run is what the bar asks for
		if !r.OK() || r.FirstEventNS == nil || r.TTFTNS == nil || *r.FirstEventNS >= *r.TTFTNS {
			t.Fatalf("record %s: no role-only first chunk before its text (first event %v, ttft %v)", r.ID, r.FirstEventNS, r.TTFTNS)
		}
		if want := []int{3, 3, 3, 1}; !slices.Equal(r.TextTokens, want) || r.OutputTokens != 10 {
			t.Fatalf("record %s: tokens per event %v (output %d), want %v", r.ID, r.TextTokens, r.OutputTokens, want)
		}
	}
	want := recomputed(recs)
	code, out, errOut := run(t, nil, "summary", "--definitions", "vllm,aiperf,guidellm,inference-perf", "--format", "json", recFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Definitions struct {
			Rows []struct {
				Tool     string   `json:"tool"`
				Quantity string   `json:"quantity"`
				Count    int      `json:"count"`
				P50      *float64 `json:"p50_ms"`
				P99      *float64 `json:"p99_ms"`
			} `json:"rows"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, row := range doc.Definitions.Rows {
		k := row.Tool + "/" + row.Quantity
		xs, ok := want[k]
		if row.Tool == "llmstream" || k == "vllm/e2el_incl_queue" && row.Count == 0 && !ok {
			continue // closed-loop: no scheduled arrivals
		}
		if !ok {
			t.Errorf("row %s: no recomputed formula", k)
			continue
		}
		seen++
		slices.Sort(xs)
		p50, _ := stats.Percentile(xs, 50)
		p99, _ := stats.Percentile(xs, 99)
		if row.Count != len(xs) || row.P50 == nil || row.P99 == nil || math.Abs(*row.P50-p50) > 1e-6 || math.Abs(*row.P99-p99) > 1e-6 {
			t.Errorf("%s: n %d p50 %v p99 %v; recomputed n %d p50 %v p99 %v", k, row.Count, deref(row.P50), deref(row.P99), len(xs), p50, p99)
		}
	}
	if seen != len(want) {
		t.Errorf("%d rows matched, %d recomputed quantities", seen, len(want))
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
