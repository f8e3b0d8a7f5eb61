package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
)

// moduleScript is a k6 script that streams from ollama with llmstream.js and
// prints each result. Its thresholds are those a user would gate on.
const moduleScript = `
import { check } from 'k6';
import { Client } from 'MODULE';

const maxTokens = Number(__ENV.MAX_TOKENS);
const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL, model: __ENV.LLM_MODEL, api: 'openai-chat',
  timeout: __ENV.TIMEOUT, tags: { e2e: 'ollama' },
});

export const options = {
  vus: Number(__ENV.VUS),
  thresholds: {
    llm_requests_failed: ['rate==0'],
    checks: ['rate==1'],
    'llm_ttft{token_source:usage}': ['min>0'],
  },
};

export default function () {
  const r = llm.chat({
    messages: [{ role: 'user', content: __ENV.PROMPT }],
    max_tokens: maxTokens, temperature: 0, seed: 42,
  });
  check(r, {
    'streamed without error': (x) => x.ok,
    'output tokens from usage equal max_tokens': (x) => x.tokenSource === 'usage' && x.outputTokens === maxTokens,
    'stopped by length': (x) => x.finishReason === 'length',
  });
  console.log('RESULT ' + JSON.stringify(r));
}
`

// moduleResult is the part of the module's result object this test reads.
type moduleResult struct {
	OK     bool `json:"ok"`
	Status int  `json:"status"`
	Error  *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	Model        string    `json:"model"`
	API          string    `json:"api"`
	TTFT         *float64  `json:"ttft"`
	TPOT         *float64  `json:"tpot"`
	E2E          *float64  `json:"e2e"`
	ITL          []float64 `json:"itl"`
	OutputTokens int       `json:"outputTokens"`
	InputTokens  int       `json:"inputTokens"`
	TokenSource  string    `json:"tokenSource"`
	FinishReason string    `json:"finishReason"`
	RequestID    string    `json:"requestId"`
	Raw          struct {
		HeadersMS    *float64 `json:"headers_ms"`
		FirstEventMS *float64 `json:"first_event_ms"`
		TextEvents   int      `json:"text_events"`
	} `json:"raw"`
}

// The tags every llm_* sample must carry (docs/module.md), besides the
// script's own e2e=ollama.
var contractTags = []string{"model", "api", "status", "error", "token_source"}

// TestOllamaModule runs llmstream.js under the k6sim harness (sobek with
// stand-ins for k6's APIs) against the helper in front of ollama:
// LLMSTREAM_OLLAMA_STREAMS VUs share twice as many iterations. Each result must
// hold for a real engine, and the llm_* samples must be exactly what the
// results say, with the contract's tags.
func TestOllamaModule(t *testing.T) {
	tg := ollama(t)
	modulePath, err := filepath.Abs("../xk6-llmstream/js/llmstream.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(modulePath); err != nil {
		t.Fatalf("the module: %v", err)
	}
	script := filepath.Join(t.TempDir(), "ollama.js")
	src := strings.Replace(moduleScript, "MODULE", "file://"+filepath.ToSlash(modulePath), 1)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
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

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	iterations := 2 * tg.streams
	res, err := k6sim.Run(ctx, k6sim.Config{
		Script: script,
		Env: map[string]string{
			"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": tg.base, "LLM_MODEL": tg.model,
			"MAX_TOKENS": strconv.Itoa(tg.maxTokens), "PROMPT": prompt,
			"TIMEOUT": strconv.Itoa(int(requestTimeout/time.Millisecond)) + "ms",
			"VUS":     strconv.Itoa(tg.streams),
		},
		VUs:        tg.streams,
		Iterations: iterations,
	})
	if err != nil {
		t.Fatalf("k6sim.Run: %v", err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	for _, th := range res.Thresholds {
		if !th.Passed {
			t.Errorf("threshold %s: %s failed: %v over %d samples", th.Metric, th.Expr, th.Value, th.Samples)
		}
	}
	if res.ExitCode != k6sim.ExitOK || len(res.Thresholds) != 3 {
		t.Errorf("exit code %d with %d thresholds evaluated, want 0 and 3", res.ExitCode, len(res.Thresholds))
	}

	// The results the script printed, one per iteration, each with its own id.
	var results []moduleResult
	for _, line := range res.Console {
		_, js, ok := strings.Cut(line, "RESULT ")
		if !ok {
			continue
		}
		var r moduleResult
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatalf("bad RESULT line: %v: %s", err, line)
		}
		results = append(results, r)
	}
	if len(results) != iterations {
		t.Fatalf("%d results, want one per iteration (%d)", len(results), iterations)
	}

	// The llm_* samples by request id (the llm_request_id metadata).
	byID := map[string]map[string][]k6sim.Sample{}
	for _, s := range res.Samples {
		if !strings.HasPrefix(s.Metric, "llm_") {
			continue
		}
		id := s.Metadata["llm_request_id"]
		if id == "" {
			t.Errorf("%s sample %v without llm_request_id metadata", s.Metric, s.Value)
			continue
		}
		for _, k := range contractTags {
			if _, ok := s.Tags[k]; !ok {
				t.Errorf("%s sample of %s has no %q tag: %v", s.Metric, id, k, s.Tags)
			}
		}
		want := map[string]string{"model": tg.model, "api": "openai-chat", "status": "200", "error": "", "token_source": "usage", "e2e": "ollama"}
		for k, v := range want {
			if s.Tags[k] != v {
				t.Errorf("%s sample of %s: tag %s=%q, want %q", s.Metric, id, k, s.Tags[k], v)
			}
		}
		if byID[id] == nil {
			byID[id] = map[string][]k6sim.Sample{}
		}
		byID[id][s.Metric] = append(byID[id][s.Metric], s)
	}
	if len(byID) != iterations {
		t.Errorf("samples of %d requests, want %d", len(byID), iterations)
	}
	// The VUs streamed at the same time: request ids are "<VU>-<n>".
	vus := map[string]bool{}
	for _, r := range results {
		vu, _, _ := strings.Cut(r.RequestID, "-")
		vus[vu] = true
	}
	if tg.streams > 1 && len(vus) < 2 {
		t.Errorf("all %d requests came from VU %v, want several VUs (%d) at once", len(results), vus, tg.streams)
	}
	t.Logf("%d requests from %d VUs", len(results), len(vus))

	for _, r := range results {
		t.Run("request-"+r.RequestID, func(t *testing.T) {
			o := outcome{
				status: r.Status, api: r.API, model: r.Model, tokenSource: r.TokenSource,
				outputTokens: r.OutputTokens, inputTokens: r.InputTokens, textEvents: r.Raw.TextEvents, finish: r.FinishReason,
			}
			if r.Error != nil {
				o.failure = r.Error.Kind + ": " + r.Error.Message
			} else if !r.OK {
				o.failure = "ok is false with no error"
			}
			var tm timings
			tm.headers, _ = msOf(r.Raw.HeadersMS)
			tm.firstEvent, _ = msOf(r.Raw.FirstEventMS)
			tm.ttft, tm.hasTTFT = msOf(r.TTFT)
			tm.tpot, tm.hasTPOT = msOf(r.TPOT)
			tm.e2e, _ = msOf(r.E2E)
			tm.itl = msList(r.ITL)
			checkAnswer(t, tg, o, tm, time.Microsecond)

			// The samples of this request are exactly its result.
			ss := byID[r.RequestID]
			one := func(metric string, want float64) {
				t.Helper()
				got := sampleValues(ss[metric])
				if len(got) != 1 || got[0] != want {
					t.Errorf("%s samples %v, want [%v]", metric, got, want)
				}
			}
			one("llm_ttft", *r.TTFT)
			one("llm_tpot", *r.TPOT)
			one("llm_e2e", *r.E2E)
			one("llm_output_tokens", float64(tg.maxTokens))
			one("llm_input_tokens", float64(r.InputTokens))
			one("llm_requests_failed", 0)
			if got := sampleValues(ss["llm_itl"]); !slices.Equal(got, r.ITL) {
				t.Errorf("llm_itl samples %v,\nresult's itl %v", got, r.ITL)
			}
			for _, s := range ss["llm_ttft"] {
				if s.Type != k6sim.Trend || !s.IsTime {
					t.Errorf("llm_ttft is a %s (time %v), want a time Trend", s.Type, s.IsTime)
				}
			}
		})
	}
}

func sampleValues(ss []k6sim.Sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.Value
	}
	return out
}
