package moduletest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// The latency schedule of the e2e mock: the module's numbers are checked
// against it (lower bounds, which cannot flake) and against the mock's own
// per-event write stamps (ground truth: what the docs promise, with no margin
// that depends on the machine's speed).
const (
	e2ePrefill = 30 * time.Millisecond
	e2eITL     = 15 * time.Millisecond
	e2eTokens  = 8
	// e2eReasoning is the reasoning model's reasoning tokens (one per event).
	e2eReasoning = 3
	// clockStep bounds how far the wall clock may step between the mock's write
	// stamp and the helper's read stamp (both wall clock, one process): a
	// clock property, not a speed margin.
	clockStep = time.Millisecond
)

// startHelper starts the real helper on loopback and stops it with the test.
func startHelper(t *testing.T, opts ...helper.Option) *helper.Server {
	t.Helper()
	hs, err := helper.Start("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatalf("helper.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Errorf("helper shutdown: %v", err)
		}
	})
	return hs
}

// startMock starts a mock LLM and stops it with the test.
func startMock(t *testing.T, cfg mockllm.Config) string {
	t.Helper()
	url, _ := startStoppableMock(t, cfg)
	return url
}

// startStoppableMock is startMock with the function that stops the mock
// (idempotent; the test's cleanup calls it too): once it returned, every
// request is in the mock's Config.Log.
func startStoppableMock(t *testing.T, cfg mockllm.Config) (url string, stop func()) {
	t.Helper()
	m, err := mockllm.New(cfg)
	if err != nil {
		t.Fatalf("mockllm.New: %v", err)
	}
	ts := httptest.NewServer(m)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ts.Close()
			if err := m.Close(); err != nil {
				t.Errorf("mock close: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return ts.URL, stop
}

func fixedModel(prefill, itl time.Duration, tokens int) mockllm.ModelConfig {
	return mockllm.ModelConfig{
		Prefill:      mockllm.Prefill{Base: prefill},
		ITL:          mockllm.ITL{Base: itl},
		OutputTokens: mockllm.FixedCount(tokens),
	}
}

// e2eScript sends one request per (api, model) with the timeline kept.
const e2eScript = `
const apis = ['openai-chat', 'openai-completions', 'anthropic-messages'];
const models = __ENV.MODELS.split(',');
const clients = {};
for (const api of apis) {
  clients[api] = new Client({ baseURL: __ENV.LLM_BASE_URL, api: api, apiKey: __ENV.KEY, timeout: '20s', keepTimeline: true });
}
function params(api, model) {
  const p = { model: model, max_tokens: 8 };
  if (api === 'openai-completions') p.prompt = 'Explain TTFT in one sentence.';
  else p.messages = [{ role: 'user', content: 'Explain TTFT in one sentence.' }];
  if (model === 'multi' && api !== 'anthropic-messages') p.stream_options = { continuous_usage_stats: true };
  return p;
}
export default function () {
  for (const api of apis) {
    for (const model of models) {
      const r = clients[api].chat(params(api, model), { tags: { case: model } });
      r.tag = api + ' ' + model;
      emit(r);
    }
  }
}
`

func TestEndToEndDialectsAgainstHelperAndMock(t *testing.T) {
	t.Parallel()
	multi := fixedModel(e2ePrefill, e2eITL, e2eTokens)
	multi.TokensPerEvent = mockllm.TokensPerEvent{Min: 2, Max: 2}
	reasoning := fixedModel(e2ePrefill, e2eITL, e2eTokens)
	reasoning.ReasoningTokens = mockllm.FixedCount(3)
	mockURL := startMock(t, mockllm.Config{Seed: 7, Models: map[string]mockllm.ModelConfig{
		"plain": fixedModel(e2ePrefill, e2eITL, e2eTokens), "multi": multi, "reasoning": reasoning,
	}})
	hs := startHelper(t)
	res := run(t, script(t, e2eScript), map[string]string{
		"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey, "MODELS": "plain,multi,reasoning",
	}, k6sim.Config{}, false)
	assertNoKey(t, res)

	rs := results(t, res)
	if len(rs) != 9 {
		t.Fatalf("%d results, want 9", len(rs))
	}
	for _, r := range rs {
		api, model, _ := strings.Cut(r.Tag, " ")
		t.Run(api+"/"+model, func(t *testing.T) {
			if !r.OK {
				t.Fatalf("request failed: %+v", r.Error)
			}
			if r.API != api || r.Model != model || r.Status != 200 {
				t.Errorf("api %q model %q status %d", r.API, r.Model, r.Status)
			}
			if r.TokenSource != "usage" || r.InputTokens <= 0 {
				t.Errorf("token source %q input tokens %d, want usage and > 0", r.TokenSource, r.InputTokens)
			}
			wantOut := e2eTokens
			if model == "reasoning" && api != "openai-completions" {
				// The mock's reasoning phase (completions has no reasoning channel).
				// Events completed by one read share a time (docs/helper-api.md),
				// so the answer may start at the reasoning's TTFT, never before.
				if r.ReasoningTokens != e2eReasoning || r.TTFTAnswer == nil || *r.TTFTAnswer < *r.TTFT {
					t.Errorf("reasoning tokens %d, ttft %v, ttftAnswer %s", r.ReasoningTokens, *r.TTFT, fmtMS(r.TTFTAnswer))
				}
			} else if r.TTFTAnswer != nil {
				t.Errorf("ttftAnswer %v without reasoning", *r.TTFTAnswer)
			}
			if r.OutputTokens != wantOut {
				t.Errorf("output tokens %d, want %d", r.OutputTokens, wantOut)
			}
			// Lower bounds from the schedule: the mock cannot send earlier.
			prefill := float64(e2ePrefill) / float64(time.Millisecond)
			if r.TTFT == nil || *r.TTFT < prefill {
				t.Errorf("ttft %v ms, below the mock's %v ms prefill", r.TTFT, prefill)
			}
			if r.E2E == nil || r.TPOT == nil || *r.E2E < *r.TTFT {
				t.Fatalf("e2e %v tpot %v", r.E2E, r.TPOT)
			}
			wantTPOT := (*r.E2E - *r.TTFT) / float64(r.OutputTokens-1)
			if math.Abs(*r.TPOT-wantTPOT) > 0.002 {
				t.Errorf("tpot %v, want (e2e − ttft)/(tokens − 1) = %v", *r.TPOT, wantTPOT)
			}
			checkGroundTruth(t, r, model, api)
		})
	}

	// The samples are exactly the records' numbers, tagged per request.
	for _, r := range rs {
		api, model, _ := strings.Cut(r.Tag, " ")
		var ttft, itl []float64
		for _, s := range res.Samples {
			if s.Tags["api"] != api || s.Tags["case"] != model {
				continue
			}
			if s.Tags["model"] != model || s.Tags["status"] != "200" || s.Tags["error"] != "" || s.Tags["token_source"] != "usage" || s.Tags["scenario"] != "default" {
				t.Errorf("%s: %s tags %v", r.Tag, s.Metric, s.Tags)
			}
			switch s.Metric {
			case "llm_ttft":
				ttft = append(ttft, s.Value)
			case "llm_itl":
				itl = append(itl, s.Value)
			case "llm_requests_failed":
				if s.Value != 0 {
					t.Errorf("%s: failed = %v", r.Tag, s.Value)
				}
			case "llm_output_tokens":
				if s.Value != float64(r.OutputTokens) {
					t.Errorf("%s: output tokens sample %v", r.Tag, s.Value)
				}
			}
		}
		if len(ttft) != 1 || ttft[0] != *r.TTFT {
			t.Errorf("%s: llm_ttft samples %v, want [%v]", r.Tag, ttft, *r.TTFT)
		}
		if fmt.Sprint(itl) != fmt.Sprint(r.ITL) {
			t.Errorf("%s: llm_itl samples %v, the result's itl %v", r.Tag, itl, r.ITL)
		}
	}
}

// fmtMS prints an optional millisecond value.
func fmtMS(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.3f ms", *v)
}

// checkGroundTruth checks the documented timing semantics against the mock's
// own write stamps, with no margin that depends on the machine's speed: each
// ITL gap is the difference of the read times of its two text events on the
// timeline (to the microsecond of the answer's rounding); no event is read
// before the mock wrote it; read times never go backwards (events of one read
// share a time, a gap of 0); and with reasoning, ttft_answer is the read time
// of the first answer event (the mock's e2eReasoning-th text event).
func checkGroundTruth(t *testing.T, r jsResult, model, api string) {
	t.Helper()
	var text []helper.EventTime
	for _, raw := range r.Timeline {
		var e helper.EventTime
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("timeline entry %s: %v", raw, err)
		}
		if e.Text {
			text = append(text, e)
		}
	}
	// The documented rule: a gap closed by an event of k > 1 tokens (as the
	// server reported) is k llm_itl samples of gap/k.
	var want []float64
	multi := false
	for i := 1; i < len(text); i++ {
		k := max(text[i].Tokens, 1)
		multi = multi || k > 1
		for range k {
			want = append(want, float64(text[i].AtNS-text[i-1].AtNS)/1e6/float64(k))
		}
	}
	if len(want) != len(r.ITL) {
		t.Fatalf("%d text events on the timeline make %d ITL samples, the result has %d", len(text), len(want), len(r.ITL))
	}
	if model == "multi" && !multi && r.API != "anthropic-messages" {
		t.Errorf("no text event of several tokens: the mock reported usage on every chunk")
	}
	startF, ok := r.Raw["start_unix_ns"].(float64) // JSON numbers: ±256 ns here, far below clockStep
	if !ok {
		t.Fatalf("raw answer without start_unix_ns: %v", r.Raw["start_unix_ns"])
	}
	start := int64(startF)
	for i, e := range text {
		if e.ServerNS == 0 {
			t.Fatalf("text event without the mock's x_mock_ts_ns stamp: %+v", e)
		}
		if lag := time.Duration(start + e.AtNS - e.ServerNS); lag < -clockStep {
			t.Errorf("text event %d read %v before the mock wrote it", i, -lag)
		}
	}
	for i, w := range want {
		if w < 0 || math.Abs(r.ITL[i]-w) > 0.0015 {
			t.Errorf("ITL sample %d: %.4f ms, the timeline's read times make %.4f ms", i, r.ITL[i], w)
		}
	}
	if model == "reasoning" && api != "openai-completions" && r.TTFTAnswer != nil {
		if want := text[e2eReasoning].AtMS; math.Abs(*r.TTFTAnswer-want) > 0.0015 {
			t.Errorf("ttftAnswer %s, want the read time of the first answer event %.3f ms", fmtMS(r.TTFTAnswer), want)
		}
	}
}

// TestEndToEndFaultKinds runs every mock fault through helper and module, in
// all three dialects, and checks the error kind on the result and the samples.
func TestEndToEndFaultKinds(t *testing.T) {
	t.Parallel()
	faults := map[string]mockllm.Faults{
		"f429":        {HTTP429: 1},
		"f5xx":        {HTTP5xx: 1},
		"disconnect":  {Disconnect: 1},
		"errorevent":  {ErrorEvent: 1},
		"malformed":   {Malformed: 1},
		"notstreamed": {NotStreamed: 1},
	}
	wantKind := map[string]string{
		"f429": "http_429", "f5xx": "http_5xx", "disconnect": "reset_midstream",
		"errorevent": "stream_error", "malformed": "malformed", "notstreamed": "not_streamed",
	}
	models := map[string]mockllm.ModelConfig{}
	var names []string
	for name, f := range faults {
		m := fixedModel(2*time.Millisecond, 2*time.Millisecond, e2eTokens)
		m.Faults = f
		models[name] = m
		names = append(names, name)
	}
	sort.Strings(names)
	mockURL := startMock(t, mockllm.Config{Seed: 3, Models: models})
	hs := startHelper(t)
	res := run(t, script(t, e2eScript), map[string]string{
		"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey, "MODELS": strings.Join(names, ","),
	}, k6sim.Config{}, false)
	assertNoKey(t, res)

	rs := results(t, res)
	if len(rs) != 3*len(names) {
		t.Fatalf("%d results, want %d", len(rs), 3*len(names))
	}
	for _, r := range rs {
		_, model, _ := strings.Cut(r.Tag, " ")
		if r.OK || r.ErrorKind != wantKind[model] {
			t.Errorf("%s: ok %v kind %q (%v), want %q", r.Tag, r.OK, r.ErrorKind, r.Error, wantKind[model])
		}
		if r.TPOT != nil {
			t.Errorf("%s: tpot %v on a failed request", r.Tag, *r.TPOT)
		}
	}
	failed := map[string]int{}
	for _, s := range res.Of("llm_requests_failed") {
		if s.Value != 1 || s.Tags["error"] != wantKind[s.Tags["case"]] {
			t.Errorf("llm_requests_failed %v tags %v", s.Value, s.Tags)
		}
		failed[s.Tags["api"]+" "+s.Tags["case"]]++
	}
	if len(failed) != 3*len(names) {
		t.Errorf("failed samples per request %v, want one for each of %d requests", failed, 3*len(names))
	}
	for k, n := range failed {
		if n != 1 {
			t.Errorf("%s: %d llm_requests_failed samples", k, n)
		}
	}
	// A stream cut after text began keeps its TTFT; status tags say what the server answered.
	for _, s := range res.Samples {
		c := s.Tags["case"]
		if s.Metric == "llm_ttft" && c != "disconnect" && c != "errorevent" && c != "malformed" {
			t.Errorf("%s: llm_ttft sample for a request without text", c)
		}
		if strings.HasPrefix(s.Metric, "llm_") && c == "f429" && s.Tags["status"] != "429" {
			t.Errorf("429 fault tagged status %q", s.Tags["status"])
		}
	}
	if n := countCase(res, "llm_ttft", "disconnect"); n != 3 {
		t.Errorf("%d llm_ttft samples for mid-stream disconnects, want 3 (text arrived before the cut)", n)
	}
}

func countCase(res *k6sim.Result, metric, c string) int {
	n := 0
	for _, s := range res.Of(metric) {
		if s.Tags["case"] == c {
			n++
		}
	}
	return n
}

// TestEndToEndUnauthorizedAndHelperRefusals covers the mock's 401, the
// helper's allow-list (403) and token (401) refusals, and asyncChat through
// the real helper.
func TestEndToEndUnauthorizedAndHelperRefusals(t *testing.T) {
	t.Parallel()
	mockURL := startMock(t, mockllm.Config{APIKey: "the-right-key", Default: fixedModel(time.Millisecond, time.Millisecond, 4)})
	hs := startHelper(t)
	tokenHelper := startHelper(t, helper.WithToken("helper-secret"))
	res := run(t, script(t, `
const wrongKey = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY, model: 'm' });
const rightKey = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: 'the-right-key', model: 'm', api: 'anthropic-messages' });
const offList = new Client({ baseURL: 'http://upstream.example.com:8080', apiKey: __ENV.KEY, model: 'm' });
const noToken = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: 'the-right-key', helper: __ENV.TOKEN_HELPER });
const withToken = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: 'the-right-key', helper: __ENV.TOKEN_HELPER, helperToken: 'helper-secret' });
export default async function () {
  for (const [name, c] of [['wrongkey', wrongKey], ['rightkey', rightKey], ['offlist', offList], ['notoken', noToken], ['withtoken', withToken]]) {
    const r = c.chat('hi', { tags: { case: name } });
    r.tag = name;
    emit(r);
  }
  const rs = await Promise.all([rightKey.asyncChat('a'), rightKey.asyncChat('b')]);
  for (const r of rs) { r.tag = 'async'; emit(r); }
}
`), map[string]string{"LLMSTREAM_HELPER": hs.URL(), "TOKEN_HELPER": tokenHelper.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey}, k6sim.Config{}, false)
	assertNoKey(t, res)
	want := map[string]struct {
		ok   bool
		kind string
		msg  string
	}{
		"wrongkey":  {false, "http_401", ""},
		"rightkey":  {true, "", ""},
		"offlist":   {false, "helper", "helper_forbidden"},
		"notoken":   {false, "helper", "helper_unauthorized"},
		"withtoken": {true, "", ""},
		"async":     {true, "", ""},
	}
	seen := 0
	for _, r := range results(t, res) {
		w := want[r.Tag]
		seen++
		if r.OK != w.ok || r.ErrorKind != w.kind || (w.msg != "" && !strings.Contains(r.Error.Message, w.msg)) {
			t.Errorf("%s: ok %v kind %q error %+v, want ok %v kind %q message with %q", r.Tag, r.OK, r.ErrorKind, r.Error, w.ok, w.kind, w.msg)
		}
		if r.Error != nil && strings.Contains(r.Error.Message, testKey) {
			t.Errorf("%s: error message holds the key", r.Tag)
		}
	}
	if seen != 7 {
		t.Errorf("%d results, want 7", seen)
	}
	if n := len(res.Of("llm_requests_failed")); n != 7 {
		t.Errorf("%d llm_requests_failed samples, want 7", n)
	}
}
