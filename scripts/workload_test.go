package scripts

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

func readEntries(t *testing.T, path string) []workload.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []workload.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e workload.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestSharedPrefixTokenAndCacheTruth runs shared-prefix.js under k6sim, one
// VU through the whole dataset, against a mock counting with cl100k_base and
// caching prefixes, and checks:
//   - token truth: the server-reported prompt tokens (llm_input_tokens, per
//     entry through llm_entry_id) equal the dataset's input_tokens;
//   - the cache: the mock served each group's 256-token prefix from cache for
//     every request but the group's first (its log's cached_tokens), and the
//     client-side llm_cached_input_tokens, when the module has it, adds up to
//     the same;
//   - TTFT: each hit's ground-truth prefill is base + per-token × uncached
//     tokens, and each request's measured TTFT is at least its logged
//     queue wait + prefill (causality, no wall-clock margin).
func TestSharedPrefixTokenAndCacheTruth(t *testing.T) {
	t.Parallel()
	entries := readEntries(t, "data/shared-prefix.jsonl")
	const base, perToken = 5 * time.Millisecond, 200 * time.Microsecond
	log := &syncBuffer{}
	m, err := mockllm.New(mockllm.Config{Seed: 1, Log: log, Tokenizer: "cl100k_base",
		PrefixCache: mockllm.PrefixCache{Blocks: 4096, BlockTokens: 16},
		Default:     mockllm.ModelConfig{Prefill: mockllm.Prefill{Base: base, PerInputToken: perToken}, OutputTokens: mockllm.FixedCount(4)}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m)
	defer ts.Close()
	hs, err := helper.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hs.Shutdown(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := k6sim.Run(ctx, k6sim.Config{Script: "shared-prefix.js", VUs: 1, Iterations: len(entries),
		Env: map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": ts.URL, "LLM_VUS": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	var recs []mockllm.RequestLog
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var r mockllm.RequestLog
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != len(entries) {
		t.Fatalf("%d requests logged, want %d", len(recs), len(entries))
	}
	byID := map[string]int{}
	for i, e := range entries {
		byID[e.ID] = i
	}
	// One VU, seed 1: request k is entry (1 + k) mod n; the log is in arrival order.
	logOf := map[string]mockllm.RequestLog{}
	seenGroup := map[int]bool{}
	cachedSum := 0
	for k, r := range recs {
		e := entries[(1+k)%len(entries)]
		logOf[e.ID] = r
		if r.InputTokens != e.InputTokens {
			t.Errorf("%s: mock counted %d prompt tokens, dataset %d", e.ID, r.InputTokens, e.InputTokens)
		}
		want := 0
		if seenGroup[e.PrefixGroup] {
			want = e.PrefixTokens
		}
		seenGroup[e.PrefixGroup] = true
		if r.CachedTokens != want {
			t.Errorf("%s (group %d): %d cached tokens, want %d", e.ID, e.PrefixGroup, r.CachedTokens, want)
		}
		cachedSum += r.CachedTokens
		if got, want := time.Duration(r.PrefillNS), base+time.Duration(r.InputTokens-r.CachedTokens)*perToken; got != want {
			t.Errorf("%s: logged prefill %v, want %v", e.ID, got, want)
		}
	}
	inputs, ttfts, cachedClient := 0, 0, 0
	for _, s := range res.Samples {
		id := s.Metadata["llm_entry_id"]
		if _, ok := byID[id]; !ok && strings.HasPrefix(s.Metric, "llm_") {
			t.Fatalf("%s sample without a known llm_entry_id: %v", s.Metric, s.Metadata)
		}
		switch s.Metric {
		case "llm_input_tokens":
			inputs++
			if int(s.Value) != entries[byID[id]].InputTokens {
				t.Errorf("%s: server-reported prompt tokens %v, dataset %d", id, s.Value, entries[byID[id]].InputTokens)
			}
		case "llm_ttft":
			ttfts++
			r := logOf[id]
			if floor := float64(r.QueueWaitNS+r.PrefillNS) / 1e6; s.Value < floor {
				t.Errorf("%s: TTFT %.3f ms below the mock's queue wait + prefill %.3f ms", id, s.Value, floor)
			}
		case "llm_cached_input_tokens":
			cachedClient += int(s.Value)
		}
	}
	if inputs != len(entries) || ttfts != len(entries) {
		t.Errorf("%d llm_input_tokens and %d llm_ttft samples, want %d", inputs, ttfts, len(entries))
	}
	total := 0
	for _, e := range entries {
		total += e.InputTokens
	}
	t.Logf("cache-hit share in the mock's log: %d of %d prompt tokens (%.1f%%)", cachedSum, total, 100*float64(cachedSum)/float64(total))
	if _, declared := res.Metrics["llm_cached_input_tokens"]; declared && cachedClient != cachedSum {
		t.Errorf("llm_cached_input_tokens adds up to %d, the mock's log to %d", cachedClient, cachedSum)
	} else if !declared {
		t.Log("the module has no llm_cached_input_tokens yet: the client-side share is not compared")
	}
}
