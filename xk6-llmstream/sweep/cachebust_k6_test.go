package sweep

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// onePassScript sends every entry of a dataset once per level, shared by
// LLM_VUS VUs: each level sends the same prompts.
const onePassScript = `
import exec from 'k6/execution';
import { Client, Dataset } from 'file://%s';
const data = new Dataset('%s');
const llm = new Client({ baseURL: __ENV.LLM_BASE_URL, model: 'mock' });
export const options = { scenarios: { pass: { executor: 'shared-iterations', vus: Number(__ENV.LLM_VUS || 1), iterations: data.length, maxDuration: '2m' } } };
export default function () { llm.chat(data.at(exec.scenario.iterationInTest)); }
`

// TestCacheBustSweepWithRealK6: a two-level sweep of the shared-prefix
// dataset (scripts/data/shared-prefix.jsonl, 8 groups) against one mock with
// a prefix cache, its /metrics scraped. With a fresh salt per level (the
// default) the second level's prefix-cache hit rate equals the first's and
// the sweep does not warn; with --no-cache-bust the second level is served
// from the cache the first built — a higher hit rate — and the sweep warns.
// The hit rates are the mock's own counters (TestPrefixCacheCounters: the
// sums of its request log).
func TestCacheBustSweepWithRealK6(t *testing.T) {
	if _, err := runner.FindK6(os.Environ()); err != nil {
		t.Skipf("no real k6 (set K6_BIN or put k6 on PATH): %v", err)
	}
	module, err := filepath.Abs("../js/llmstream.js")
	if err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs("../../scripts/data/shared-prefix.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "onepass.js")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(onePassScript, module, data)), 0o644); err != nil {
		t.Fatal(err)
	}
	checks, err := ParseSLO(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	sweepOnce := func(name string, noBust bool) *Result {
		m, err := mockllm.New(mockllm.Config{Seed: 1, Tokenizer: "cl100k_base", PrefixCache: mockllm.PrefixCache{Blocks: 1 << 16},
			Default: mockllm.ModelConfig{Prefill: mockllm.Prefill{Base: time.Millisecond}, ITL: mockllm.ITL{Base: 100 * time.Microsecond}}})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(m)
		defer ts.Close()
		defer m.Close()
		out := filepath.Join(dir, name)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		env := append(os.Environ(), "LLM_BASE_URL="+ts.URL, "LLM_RATE=", "LLM_VUS=", "LLM_CACHE_BUST=", "LLM_CACHE_SALT=")
		res, err := Execute(context.Background(), Config{
			Spec: DefaultSpec(VUs, checks), Plan: Fixed{Levels: []float64{1, 2}}, OutDir: out, Progress: testWriter{t},
			Scrape: Scrape{URL: ts.URL + "/metrics"}, NoCacheBust: noBust,
			Exec: K6{Mode: VUs, Script: script, Env: env},
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Levels) != 2 {
			t.Fatalf("%s: %d levels ran (%s)", name, len(res.Levels), res.Stopped)
		}
		var table strings.Builder
		if err := WriteTable(&table, res); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", name, table.String())
		return res
	}
	rate := func(res *Result, i int) float64 {
		t.Helper()
		r := res.Levels[i].prefixHitRate()
		if r == nil {
			t.Fatalf("level %d: no prefix-cache hit rate: %+v", i+1, res.Levels[i].Server)
		}
		return *r
	}
	busted := sweepOnce("busted", false)
	if a, b := rate(busted, 0), rate(busted, 1); a != b || a <= 0 {
		t.Errorf("busted: hit rates %.4f and %.4f, want equal and above 0 (shared prefixes shared within a level)", a, b)
	}
	if busted.CacheWarning != "" || !busted.CacheBust {
		t.Errorf("busted: cache_bust %v, warning %q", busted.CacheBust, busted.CacheWarning)
	}
	reused := sweepOnce("reused", true)
	if a, b := rate(reused, 0), rate(reused, 1); b <= a+CacheRiseLimit {
		t.Errorf("no busting: hit rates %.4f then %.4f, want the second higher", a, b)
	}
	if !strings.Contains(reused.CacheWarning, "without cache busting") {
		t.Errorf("no busting: warning %q", reused.CacheWarning)
	}
}
