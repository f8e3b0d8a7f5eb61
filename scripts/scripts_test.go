// Package scripts holds the tests of the k6 scripts in this folder. Every
// script runs under k6sim (in CI, where there is no k6) and, when K6_BIN or k6
// on PATH is present, with real k6 — both against the real helper and mock LLM
// started in-process.
package scripts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// testKey is passed as LLM_API_KEY; it must never show up in any output.
const testKey = "sk-test-DO-NOT-LEAK-1234"

// expect says what each script must produce beyond the common llm_* samples.
var expect = map[string]struct {
	// tag → values that must all appear on llm_ttft samples
	tags map[string][]string
	// warmups is how many warm-up requests the script can make in all (one per
	// VU of a Client with warmup: 1): they add no llm_* samples (docs/module-metrics.md).
	warmups int
	// env is added under k6sim (which runs iterations, not durations)
	env map[string]string
	// metrics replace llmMetrics, and tagMetric llm_ttft as the metric whose
	// tags are checked (a script of embeddings and rerank has no generation)
	metrics   []string
	tagMetric string
}{
	"smoke.js":             {tags: map[string][]string{"scenario": {"smoke"}}},
	"ramping-vus.js":       {tags: map[string][]string{"scenario": {"ramp"}}},
	"arrival-rate.js":      {tags: map[string][]string{"scenario": {"constant", "ramping"}}},
	"concurrency-sweep.js": {tags: map[string][]string{"concurrency": {"1", "4", "8"}, "scenario": {"c1", "c4", "c8"}}, warmups: 8},
	"compare-models.js":    {tags: map[string][]string{"model": {"model-a", "model-b"}}},
	"ci-gate.js":           {tags: map[string][]string{"scenario": {"gate"}, "model": {"mock"}}},
	"capacity.js":          {tags: map[string][]string{"scenario": {"capacity"}}},
	"dataset.js":           {tags: map[string][]string{"scenario": {"dataset"}}},
	"synthetic.js":         {tags: map[string][]string{"scenario": {"synthetic"}}},
	"shared-prefix.js":     {tags: map[string][]string{"scenario": {"prefix"}, "prefix_group": {"2", "3"}}},
	"multi-turn.js":        {tags: map[string][]string{"scenario": {"conversation"}, "turn": {"1", "2", "3"}}, env: map[string]string{"LLM_THINK": "1ms"}},
	"poisson.js":           {tags: map[string][]string{"scenario": {"poisson"}}, env: map[string]string{"LLM_RATE": "100", "LLM_ARRIVALS": "20"}},
	"replay.js":            {tags: map[string][]string{"scenario": {"replay"}}, env: map[string]string{"LLM_SPEEDUP": "20"}},
	"agent-replay.js":      {tags: map[string][]string{"scenario": {"agents"}, "agent_step": {"1", "2", "3"}}, env: map[string]string{"LLM_SPEEDUP": "20"}},
	"vision.js":            {tags: map[string][]string{"scenario": {"vision"}, "image_size": {"256x256", "512x512", "1024x1024"}}},
	"structured.js":        {tags: map[string][]string{"scenario": {"structured"}}},
	// The test's mock calls a tool once, then answers: 2-step tasks.
	"agent.js": {tags: map[string][]string{"scenario": {"agent"}, "step": {"1", "2"}}},
	"embeddings.js": {tags: map[string][]string{"scenario": {"embeddings"}, "api": {"openai-embeddings"}}, tagMetric: "llm_embed_duration",
		metrics: []string{"llm_embed_duration", "llm_embed_input_tokens", "llm_embed_batch_size", "llm_embed_failed",
			"llm_rerank_duration", "llm_rerank_input_tokens", "llm_rerank_documents", "llm_rerank_failed"}},
}

// llmMetrics are the metrics every script must produce (llm_ttft_answer only
// comes with reasoning models, llm_slo_met only with an slo).
var llmMetrics = []string{"llm_ttft", "llm_tpot", "llm_itl", "llm_e2e", "llm_output_tokens", "llm_input_tokens", "llm_requests_failed"}

// schedulerMetrics are the llm_* metrics of the arrivals() scheduler, not of
// requests: they carry no request tags.
var schedulerMetrics = map[string]bool{"llm_arrival_lateness": true, "llm_arrivals_dropped": true}

// requiredTags are on every llm_* sample.
var requiredTags = []string{"model", "api", "status", "error", "token_source", "scenario"}

func scriptFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.js")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for name := range expect {
		found := false
		for _, n := range names {
			found = found || n == name
		}
		if !found {
			t.Errorf("script %s is missing", name)
		}
	}
	for _, n := range names {
		if _, ok := expect[n]; !ok {
			t.Errorf("script %s has no expectations in scripts_test.go: add them", n)
		}
	}
	return names
}

// stack is a helper and a mock LLM on loopback.
type stack struct {
	helperURL, mockURL string
}

// startStack starts a fast mock (20 ms to the first token, 5 ms per token, 12
// tokens) and the helper.
func startStack(t *testing.T) stack {
	t.Helper()
	m, err := mockllm.New(mockllm.Config{Seed: 1, Default: mockllm.ModelConfig{
		Prefill:      mockllm.Prefill{Base: 20 * time.Millisecond},
		ITL:          mockllm.ITL{Base: 5 * time.Millisecond},
		OutputTokens: mockllm.FixedCount(12),
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m)
	hs, err := helper.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Errorf("helper shutdown: %v", err)
		}
		ts.Close()
		if err := m.Close(); err != nil {
			t.Errorf("mock close: %v", err)
		}
	})
	return stack{helperURL: hs.URL(), mockURL: ts.URL}
}

// point is one sample of k6's --out json or of k6sim.
type point struct {
	metric   string
	value    float64
	tags     map[string]string
	metadata map[string]string
}

// checkPoints asserts the common and per-script expectations on llm_* samples.
func checkPoints(t *testing.T, script string, pts []point) {
	t.Helper()
	seen := map[string]int{}
	tagValues := map[string]map[string]bool{}
	for _, p := range pts {
		if !strings.HasPrefix(p.metric, "llm_") || schedulerMetrics[p.metric] {
			continue
		}
		seen[p.metric]++
		for _, k := range requiredTags {
			if _, ok := p.tags[k]; !ok {
				t.Errorf("%s: %s sample without tag %q: %v", script, p.metric, k, p.tags)
				return
			}
		}
		if p.metadata["llm_request_id"] == "" {
			t.Errorf("%s: %s sample without llm_request_id metadata", script, p.metric)
			return
		}
		if (p.metric == "llm_requests_failed" || p.metric == "llm_embed_failed" || p.metric == "llm_rerank_failed") && p.value != 0 {
			t.Errorf("%s: a request failed: %v", script, p.tags)
		}
		tagMetric := "llm_ttft"
		if m := expect[script].tagMetric; m != "" {
			tagMetric = m
		}
		if p.metric == tagMetric {
			for k, v := range p.tags {
				if tagValues[k] == nil {
					tagValues[k] = map[string]bool{}
				}
				tagValues[k][v] = true
			}
		}
	}
	want := llmMetrics
	if m := expect[script].metrics; m != nil {
		want = m
	}
	for _, m := range want {
		if seen[m] == 0 {
			t.Errorf("%s: no %s samples (got %v)", script, m, seen)
		}
	}
	for k, vals := range expect[script].tags {
		for _, v := range vals {
			if !tagValues[k][v] {
				missingTagValue(t, script, pts, k, v)
			}
		}
	}
}

// missingTagValue explains a tag value without llm_ttft samples. The module's
// documented rule is that every request after a Client's warm-up adds llm_*
// samples, and that warm-up requests add none; on a slow machine a short level
// may hold nothing but warm-ups. That is correct only when no request tagged
// k=v added an llm_requests_failed sample and the level's hop requests could
// all have been warm-ups; anything else is the defect the check is for.
func missingTagValue(t *testing.T, script string, pts []point, k, v string) {
	t.Helper()
	hops, recorded := 0, 0
	for _, p := range pts {
		if p.tags[k] != v {
			continue
		}
		switch {
		case p.metric == "http_reqs" && p.tags["name"] == "llmstream-helper":
			hops++
		case p.metric == "llm_requests_failed":
			recorded++
		}
	}
	if recorded > 0 || hops > expect[script].warmups || hops == 0 {
		t.Errorf("%s: no llm_ttft sample tagged %s=%s, but %d request(s) to the helper and %d llm_requests_failed sample(s) carry it (at most %d warm-ups)",
			script, k, v, hops, recorded, expect[script].warmups)
		return
	}
	t.Logf("%s: %s=%s made only %d warm-up request(s) on this machine: no samples, as documented", script, k, v, hops)
}

// TestScriptsUnderK6Sim runs every script for a few iterations per scenario
// under the simulator, against the real helper and mock.
func TestScriptsUnderK6Sim(t *testing.T) {
	st := startStack(t)
	for _, name := range scriptFiles(t) {
		for _, api := range apisFor(name) {
			t.Run(name+"/"+api, func(t *testing.T) {
				res := simRun(t, name, st, map[string]string{"LLM_API": api})
				if err := res.Err(); err != nil {
					t.Fatal(err)
				}
				if res.ExitCode != 0 {
					t.Errorf("exit code %d, want 0; thresholds %+v", res.ExitCode, res.Thresholds)
				}
				if len(res.Options.Scenarios) == 0 {
					t.Errorf("options declare no scenarios")
				}
				var pts []point
				for _, s := range res.Samples {
					pts = append(pts, point{metric: s.Metric, value: s.Value, tags: s.Tags, metadata: s.Metadata})
					if strings.HasPrefix(s.Metric, "llm_") && !schedulerMetrics[s.Metric] && s.Tags["api"] != api && expect[name].metrics == nil {
						t.Errorf("%s sample tagged api %q, want %q", s.Metric, s.Tags["api"], api)
						break
					}
				}
				checkPoints(t, name, pts)
				for _, line := range res.Console {
					if strings.Contains(line, testKey) {
						t.Errorf("the API key appears in console output: %s", line)
					}
				}
			})
		}
	}
}

// apisFor: the smoke script runs in every dialect; the others in the default.
func apisFor(name string) []string {
	if name == "smoke.js" {
		return []string{"openai-chat", "openai-completions", "anthropic-messages"}
	}
	if name == "agent.js" {
		return []string{"openai-chat", "openai-responses", "anthropic-messages", "gemini", "cohere", "ollama"}
	}
	return []string{"openai-chat"}
}

func simRun(t *testing.T, name string, st stack, extra map[string]string) *k6sim.Result {
	t.Helper()
	env := map[string]string{
		"LLMSTREAM_HELPER": st.helperURL, "LLM_BASE_URL": st.mockURL, "LLM_API_KEY": testKey,
	}
	for k, v := range expect[name].env {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := k6sim.Run(ctx, k6sim.Config{Script: name, Env: env, VUs: 2, Iterations: 6, Sleep: func(time.Duration) {}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCIGateFailsOnPurposeUnderK6Sim: the switch makes the thresholds fail,
// abortOnFail stops the run, and the exit code is 99 as with k6.
func TestCIGateFailsOnPurposeUnderK6Sim(t *testing.T) {
	st := startStack(t)
	res := simRun(t, "ci-gate.js", st, map[string]string{"LLM_GATE_FAIL": "1"})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != k6sim.ExitThresholdsFailed || !strings.Contains(res.Aborted, "abortOnFail") {
		t.Errorf("exit code %d aborted %q, want 99 and an abortOnFail abort", res.ExitCode, res.Aborted)
	}
	failed := map[string]bool{}
	for _, th := range res.Thresholds {
		if !th.Passed {
			failed[th.Metric+" "+th.Expr] = true
		}
	}
	if !failed["llm_ttft p(99)<0.001"] || len(failed) != 1 {
		t.Errorf("failed thresholds %v, want only llm_ttft p(99)<0.001", failed)
	}
	if res.Iterations >= 12 {
		t.Errorf("%d iterations ran: abortOnFail should stop the run early", res.Iterations)
	}
}

// k6Binary finds real k6: K6_BIN, else k6 on PATH.
func k6Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("K6_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("K6_BIN=%s: %v", p, err)
		}
		return p
	}
	if p, err := exec.LookPath("k6"); err == nil {
		return p
	}
	t.Skip("no k6: set K6_BIN=/path/to/k6 or put k6 on PATH to run the scripts with real k6")
	return ""
}

// TestScriptsWithRealK6 runs every script with real k6 (durations shortened
// with LLM_TIME_SCALE) and checks exit codes and the --out json samples.
func TestScriptsWithRealK6(t *testing.T) {
	k6 := k6Binary(t)
	st := startStack(t)
	type run struct {
		script string
		env    []string
		code   int
	}
	var runs []run
	for _, name := range scriptFiles(t) {
		runs = append(runs, run{name, nil, 0})
	}
	runs = append(runs, run{"ci-gate.js", []string{"LLM_GATE_FAIL=1"}, 99})
	for _, r := range runs {
		label := r.script
		if len(r.env) > 0 {
			label += "/" + strings.Join(r.env, ",")
		}
		t.Run(label, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			args := []string{"run", "--quiet", "--no-usage-report", "--out", "json=" + out,
				"-e", "LLM_TIME_SCALE=0.05", "-e", "LLM_ITERATIONS=3"}
			for _, e := range r.env {
				args = append(args, "-e", e)
			}
			args = append(args, r.script)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, k6, args...)
			cmd.Env = append(os.Environ(),
				"LLMSTREAM_HELPER="+st.helperURL, "LLM_BASE_URL="+st.mockURL, "LLM_API_KEY="+testKey,
				"K6_NO_USAGE_REPORT=true")
			var output bytes.Buffer
			cmd.Stdout = &output
			cmd.Stderr = &output
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("k6: %v", err)
			}
			if code != r.code {
				t.Fatalf("k6 exit code %d, want %d; output:\n%s", code, r.code, tail(output.String(), 3000))
			}
			if strings.Contains(output.String(), testKey) {
				t.Error("the API key appears in k6's output")
			}
			// A script users copy runs without k6 warnings (k6 v2 warns about open()
			// of a relative path from a module other than the main script).
			for _, line := range strings.Split(output.String(), "\n") {
				if strings.Contains(line, "level=warning") {
					t.Errorf("k6 warns: %s", line)
				}
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(testKey)) {
				t.Error("the API key appears in k6's JSON output")
			}
			pts, types := readK6JSON(t, raw)
			if r.code != 0 {
				if len(pts) == 0 {
					t.Error("no samples in the output of the failing run")
				}
				return
			}
			checkPoints(t, r.script, pts)
			wantTypes := map[string]string{
				"llm_ttft": "trend/time", "llm_tpot": "trend/time", "llm_itl": "trend/time", "llm_e2e": "trend/time",
				"llm_output_tokens": "counter/default", "llm_input_tokens": "counter/default", "llm_requests_failed": "rate/default",
			}
			if expect[r.script].metrics != nil { // embeddings and rerank
				wantTypes = map[string]string{"llm_embed_duration": "trend/time", "llm_embed_batch_size": "trend/default",
					"llm_embed_input_tokens": "counter/default", "llm_embed_failed": "rate/default", "llm_rerank_duration": "trend/time"}
			}
			for name, want := range wantTypes {
				if types[name] != want {
					t.Errorf("metric %s declared as %q in the JSON output, want %q", name, types[name], want)
				}
			}
			for _, p := range pts {
				if p.metric == "http_reqs" && p.tags["name"] != "llmstream-helper" {
					t.Errorf("an http_reqs sample is not named llmstream-helper: %v", p.tags)
					break
				}
			}
		})
	}
}

// readK6JSON reads k6's --out json: Points and the Metric declarations (type/contains).
func readK6JSON(t *testing.T, raw []byte) ([]point, map[string]string) {
	t.Helper()
	var pts []point
	types := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var line struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
			Data   struct {
				Value    float64           `json:"value"`
				Tags     map[string]string `json:"tags"`
				Metadata map[string]string `json:"metadata"`
				Type     string            `json:"type"`
				Contains string            `json:"contains"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("k6 JSON output line %d: %v", n, err)
		}
		switch line.Type {
		case "Point":
			pts = append(pts, point{metric: line.Metric, value: line.Data.Value, tags: line.Data.Tags, metadata: line.Data.Metadata})
		case "Metric":
			types[line.Metric] = line.Data.Type + "/" + line.Data.Contains
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pts, types
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("…%s", s[len(s)-n:])
}
