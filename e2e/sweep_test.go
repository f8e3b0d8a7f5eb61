package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
)

// sweepScript is the k6 script of scripts/e2e-ollama.sh's step 4.
const sweepScript = "ollama-sweep.js"

// TestOllamaSweepScript runs e2e/ollama-sweep.js under k6sim against the
// helper in front of ollama, so the script's options, checks and thresholds
// are exercised where there is no k6. k6sim counts iterations instead of
// timing scenarios: the single-stream level makes 2 requests, the concurrent
// level (LLMSTREAM_OLLAMA_STREAMS VUs) 2 per VU.
func TestOllamaSweepScript(t *testing.T) {
	tg := ollama(t)
	if tg.streams < 2 {
		t.Skipf("%s=%d: the sweep needs at least 2 concurrent streams", envStreams, tg.streams)
	}
	hs, err := helper.Start("127.0.0.1:0")
	if err != nil {
		t.Fatalf("helper.Start: %v", err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer scancel()
		if err := hs.Shutdown(sctx); err != nil {
			t.Errorf("helper shutdown: %v", err)
		}
	}()
	env := map[string]string{
		"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": tg.base, "LLM_MODEL": tg.model,
		"LLM_MAX_TOKENS": strconv.Itoa(tg.maxTokens), "LLM_CONCURRENCY": strconv.Itoa(tg.streams),
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	t.Run("bad environment", func(t *testing.T) {
		bad := map[string]string{}
		for k, v := range env {
			bad[k] = v
		}
		bad["LLM_CONCURRENCY"] = "1"
		_, err := k6sim.Run(ctx, k6sim.Config{Script: sweepScript, Env: bad})
		if err == nil || !strings.Contains(err.Error(), "LLM_CONCURRENCY") {
			t.Errorf("LLM_CONCURRENCY=1: error %v, want one naming LLM_CONCURRENCY", err)
		}
	})

	const iterations = 2
	res, err := k6sim.Run(ctx, k6sim.Config{Script: sweepScript, Env: env, VUs: tg.streams, Iterations: iterations})
	if err != nil {
		t.Fatalf("k6sim.Run(%s): %v", sweepScript, err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	for _, th := range res.Thresholds {
		if !th.Passed {
			t.Errorf("threshold %s: %s failed: %v over %d samples", th.Metric, th.Expr, th.Value, th.Samples)
		}
	}
	if res.ExitCode != k6sim.ExitOK {
		t.Errorf("exit code %d, want 0", res.ExitCode)
	}

	// One llm_requests_failed sample per request, in the right scenario with
	// the right concurrency tag; every sample from usage.
	level := strconv.Itoa(tg.streams)
	want := map[string]int{"c1/1": iterations, "c" + level + "/" + level: tg.streams * iterations}
	got := map[string]int{}
	for _, s := range res.Of("llm_requests_failed") {
		got[s.Tags["scenario"]+"/"+s.Tags["concurrency"]]++
		if s.Value != 0 || s.Tags["token_source"] != "usage" || s.Tags["model"] != tg.model {
			t.Errorf("llm_requests_failed sample %v with tags %v", s.Value, s.Tags)
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("scenario/concurrency %s: %d requests, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("requests by scenario/concurrency %v, want %v", got, want)
	}
	for _, s := range res.Of("llm_output_tokens") {
		if s.Value != float64(tg.maxTokens) {
			t.Errorf("llm_output_tokens sample %v, want %d", s.Value, tg.maxTokens)
		}
	}
}
