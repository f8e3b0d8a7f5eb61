package moduletest

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// The newer dialects (issue 12): openai-responses, gemini, cohere, ollama.

// newAPIs are the newer dialects' api names.
var newAPIs = []string{"openai-responses", "gemini", "cohere", "ollama"}

func TestNewerDialectsBuildTheirOwnRequests(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const apis = ['openai-responses', 'gemini', 'cohere', 'ollama'];
export default function () {
  for (const api of apis) {
    const c = new Client({ baseURL: 'http://h:1', api: api, apiKey: __ENV.KEY, model: 'm-' + api });
    const r = c.chat({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: api }], max_tokens: 7 });
    r.tag = api + ' ' + c.endpoint;
    emit(r);
  }
  const g = new Client({ baseURL: 'http://h:1', api: 'gemini', model: 'flash' });
  g.chat({ model: 'pro', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'earlier' }] }, { role: 'user', content: 'gemini-override' }],
           temperature: 0, generationConfig: { maxOutputTokens: 3 } });
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	assertNoKey(t, res)
	byPrompt := map[string]wireRequest{}
	for _, w := range h.requests() {
		byPrompt[lastText(w)] = w
	}
	msgs := func(api string) []any {
		return []any{map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": api}}
	}
	bearer := map[string]string{"Authorization": "Bearer " + testKey}
	cases := []struct {
		name, url string
		headers   map[string]string
		body      map[string]any
	}{
		{"openai-responses", "http://h:1/v1/responses", bearer,
			map[string]any{"model": "m-openai-responses", "max_output_tokens": float64(7), "input": msgs("openai-responses")}},
		{"gemini", "http://h:1/v1beta/models/m-gemini:streamGenerateContent?alt=sse", map[string]string{"x-goog-api-key": testKey},
			map[string]any{"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "Be brief."}}},
				"contents":         []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "gemini"}}}},
				"generationConfig": map[string]any{"maxOutputTokens": float64(7)}}},
		{"cohere", "http://h:1/v2/chat", bearer,
			map[string]any{"model": "m-cohere", "max_tokens": float64(7), "messages": msgs("cohere")}},
		{"ollama", "http://h:1/api/chat", bearer,
			map[string]any{"model": "m-ollama", "options": map[string]any{"num_predict": float64(7)}, "messages": msgs("ollama")}},
		{"gemini-override", "http://h:1/v1beta/models/pro:streamGenerateContent?alt=sse", map[string]string{},
			map[string]any{"contents": []any{
				map[string]any{"role": "model", "parts": []any{map[string]any{"text": "earlier"}}},
				map[string]any{"role": "user", "parts": []any{map[string]any{"text": "gemini-override"}}}},
				"generationConfig": map[string]any{"maxOutputTokens": float64(3), "temperature": float64(0)}}},
	}
	for _, c := range cases {
		w, ok := byPrompt[c.name]
		if !ok {
			t.Errorf("%s: no request reached the helper (got %v)", c.name, keys(byPrompt))
			continue
		}
		api, _, _ := strings.Cut(c.name, "-override")
		if w.URL != c.url || w.API != api {
			t.Errorf("%s: url %q api %q, want %q %q", c.name, w.URL, w.API, c.url, api)
		}
		if w.Headers == nil {
			w.Headers = map[string]string{}
		}
		if !reflect.DeepEqual(w.Headers, c.headers) {
			t.Errorf("%s: headers %v, want %v", c.name, w.Headers, c.headers)
		}
		if !reflect.DeepEqual(w.Body, c.body) {
			t.Errorf("%s: body %v, want %v", c.name, w.Body, c.body)
		}
	}
	for _, r := range results(t, res) {
		name, endpoint, _ := strings.Cut(r.Tag, " ")
		for _, c := range cases {
			if c.name == name && endpoint != c.url {
				t.Errorf("%s: client.endpoint = %q, want %q", name, endpoint, c.url)
			}
		}
	}
}

// lastText is the last user text of any dialect's body.
func lastText(w wireRequest) string {
	if p := w.prompt(); p != "" {
		return p
	}
	for _, field := range []string{"input", "contents"} {
		items, _ := w.Body[field].([]any)
		if len(items) == 0 {
			continue
		}
		m, _ := items[len(items)-1].(map[string]any)
		if s, ok := m["content"].(string); ok {
			return s
		}
		parts, _ := m["parts"].([]any)
		if len(parts) > 0 {
			p, _ := parts[0].(map[string]any)
			s, _ := p["text"].(string)
			return s
		}
	}
	return ""
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// newerScript sends one request per (api, model) with the timeline kept.
const newerScript = `
const apis = __ENV.APIS.split(',');
const models = __ENV.MODELS.split(',');
const clients = {};
for (const api of apis) {
  clients[api] = new Client({ baseURL: __ENV.LLM_BASE_URL, api: api, apiKey: __ENV.KEY, timeout: '20s', keepTimeline: true });
}
export default function () {
  for (const api of apis) {
    for (const model of models) {
      const r = clients[api].chat({ model: model, max_tokens: 8, messages: [{ role: 'user', content: 'Explain TTFT in one sentence.' }] },
                                  { tags: { case: model } });
      r.tag = api + ' ' + model;
      emit(r);
    }
  }
}
`

// syncBuffer is a Config.Log the test reads after the run.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// logs returns the mock's request log by dialect and model.
func (b *syncBuffer) logs(t *testing.T) map[string]mockllm.RequestLog {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]mockllm.RequestLog{}
	for _, line := range bytes.Split(bytes.TrimSpace(b.buf.Bytes()), []byte("\n")) {
		var l mockllm.RequestLog
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("mock log line %s: %v", line, err)
		}
		out[l.Dialect+" "+l.Model] = l
	}
	return out
}

func TestNewerDialectsAgainstHelperAndMock(t *testing.T) {
	t.Parallel()
	reasoning := fixedModel(e2ePrefill, e2eITL, e2eTokens)
	reasoning.ReasoningTokens = mockllm.FixedCount(3)
	log := &syncBuffer{}
	mockURL, stopMock := startStoppableMock(t, mockllm.Config{Seed: 7, APIKey: testKey, Log: log, Models: map[string]mockllm.ModelConfig{
		"plain": fixedModel(e2ePrefill, e2eITL, e2eTokens), "reasoning": reasoning,
	}})
	hs := startHelper(t)
	res := run(t, script(t, newerScript), map[string]string{
		"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey, "MODELS": "plain,reasoning",
		"APIS": strings.Join(newAPIs, ","),
	}, k6sim.Config{}, false)
	assertNoKey(t, res)
	rs := results(t, res)
	if len(rs) != 2*len(newAPIs) {
		t.Fatalf("%d results, want %d", len(rs), 2*len(newAPIs))
	}
	stopMock() // the mock logs a request after its last byte: the log is complete once it stopped
	gts := log.logs(t)
	for _, r := range rs {
		api, model, _ := strings.Cut(r.Tag, " ")
		t.Run(api+"/"+model, func(t *testing.T) {
			gt, ok := gts[api+" "+model]
			if !ok {
				t.Fatalf("no mock log of %s %s (have %v)", api, model, keys(gts))
			}
			checkNewerResult(t, r, api, model, gt)
			checkNewerSamples(t, res, r, api, model, gt)
		})
	}
}

// checkNewerResult checks one result against the mock's plan and its write
// stamps: the same stamped events in the same order, the same text events,
// TTFT no earlier than the mock's first text after the request arrived.
func checkNewerResult(t *testing.T, r jsResult, api, model string, gt mockllm.RequestLog) {
	t.Helper()
	if !r.OK || r.API != api || r.Model != model || r.Status != 200 || r.TokenSource != "usage" {
		t.Fatalf("ok %v (%+v) api %q model %q status %d tokens from %q", r.OK, r.Error, r.API, r.Model, r.Status, r.TokenSource)
	}
	if r.OutputTokens != gt.OutputTokens || r.InputTokens != gt.InputTokens || r.ReasoningTokens != gt.ReasoningTokens && api != "cohere" && api != "ollama" {
		t.Errorf("tokens %d out %d in %d reasoning; the mock planned %d, %d, %d", r.OutputTokens, r.InputTokens, r.ReasoningTokens, gt.OutputTokens, gt.InputTokens, gt.ReasoningTokens)
	}
	if (model == "reasoning") != (r.TTFTAnswer != nil) {
		t.Errorf("ttftAnswer %v for model %s", r.TTFTAnswer, model)
	}
	var stamps, textStamps []int64
	firstText := int64(0)
	for i, k := range gt.EventKinds {
		if k == "done" || k == "malformed" {
			continue
		}
		stamps = append(stamps, gt.EventWriteNS[i])
		if k == "text" || k == "reasoning" {
			textStamps = append(textStamps, gt.EventWriteNS[i])
			if firstText == 0 {
				firstText = gt.EventWriteNS[i] - gt.ArrivalNS
			}
		}
	}
	var got, gotText []int64
	var lastAt int64 = -1
	for _, raw := range r.Timeline {
		var e helper.EventTime
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if e.AtNS < lastAt {
			t.Errorf("timeline goes back: %d after %d", e.AtNS, lastAt)
		}
		lastAt = e.AtNS
		if e.ServerNS != 0 {
			got = append(got, e.ServerNS)
		}
		if e.Text {
			gotText = append(gotText, e.ServerNS)
		}
	}
	if !sameStamps(got, stamps) {
		t.Errorf("the stamps we read %v, the mock wrote %v", got, stamps)
	}
	if !sameStamps(gotText, textStamps) || len(r.ITL) != len(textStamps)-1 {
		t.Errorf("text events %v (%d gaps), the mock's %v", gotText, len(r.ITL), textStamps)
	}
	// The helper sent the request before the mock's arrival and read the first
	// text after the mock wrote it: TTFT ≥ first text write − arrival ≥ prefill.
	if r.TTFT == nil || *r.TTFT*1e6 < float64(firstText)-1e3 || *r.TTFT*1e6 < float64(gt.PrefillNS) {
		t.Errorf("ttft %v ms, the mock wrote the first text %v after arrival (prefill %v)", r.TTFT, time.Duration(firstText), time.Duration(gt.PrefillNS))
	}
	if r.TPOT == nil || r.E2E == nil || math.Abs(*r.TPOT-(*r.E2E-*r.TTFT)/float64(r.OutputTokens-1)) > 0.002 {
		t.Errorf("tpot %v e2e %v", r.TPOT, r.E2E)
	}
}

// sameStamps compares unix-ns stamps that went through a JavaScript number
// (a float64: exact to 256 ns at today's dates).
func sameStamps(got, want []int64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if d := got[i] - want[i]; d < -256 || d > 256 {
			return false
		}
	}
	return true
}

// checkNewerSamples: the samples are the result's numbers, with the module's
// tags; llm_server_* only for ollama, equal to the mock's plan.
func checkNewerSamples(t *testing.T, res *k6sim.Result, r jsResult, api, model string, gt mockllm.RequestLog) {
	t.Helper()
	n := map[string]int{}
	for _, s := range res.Samples {
		if s.Tags["api"] != api || s.Tags["case"] != model || !strings.HasPrefix(s.Metric, "llm_") {
			continue
		}
		n[s.Metric]++
		if s.Tags["model"] != model || s.Tags["status"] != "200" || s.Tags["error"] != "" || s.Tags["token_source"] != "usage" {
			t.Errorf("%s tags %v", s.Metric, s.Tags)
		}
		switch s.Metric {
		case "llm_ttft":
			if s.Value != *r.TTFT {
				t.Errorf("llm_ttft %v, result %v", s.Value, *r.TTFT)
			}
		case "llm_server_prefill":
			if want := float64(gt.PrefillNS) / 1e6; math.Abs(s.Value-want) > 0.0005 {
				t.Errorf("llm_server_prefill %v, the mock's prefill %v", s.Value, want)
			}
		case "llm_server_tpot":
			first, last := firstLastTextDue(gt)
			if want := float64(last-first) / float64(gt.OutputTokens) / 1e6; math.Abs(s.Value-want) > 0.0005 {
				t.Errorf("llm_server_tpot %v, the mock's decode per token %v", s.Value, want)
			}
		}
	}
	server := 0
	if api == "ollama" {
		server = 1
	}
	// The mock caches nothing yet: no llm_cached_input_tokens sample (one is
	// added only for a request that reported cached tokens).
	for metric, want := range map[string]int{"llm_ttft": 1, "llm_tpot": 1, "llm_e2e": 1, "llm_requests_failed": 1, "llm_cached_input_tokens": 0,
		"llm_itl": len(r.ITL), "llm_server_prefill": server, "llm_server_tpot": server} {
		if n[metric] != want {
			t.Errorf("%d %s samples, want %d", n[metric], metric, want)
		}
	}
}

// firstLastTextDue are the due offsets of the first and last text events.
func firstLastTextDue(gt mockllm.RequestLog) (first, last int64) {
	first = -1
	for i, k := range gt.EventKinds {
		if k == "text" || k == "reasoning" {
			if first < 0 {
				first = gt.EventDueNS[i]
			}
			last = gt.EventDueNS[i]
		}
	}
	return first, last
}

// TestNewerDialectsFaultKinds runs every mock fault through helper and module
// in each newer dialect's own error shape.
func TestNewerDialectsFaultKinds(t *testing.T) {
	t.Parallel()
	wantKind := map[string]string{
		"f429": "http_429", "f5xx": "http_5xx", "disconnect": "reset_midstream",
		"errorevent": "stream_error", "malformed": "malformed", "notstreamed": "not_streamed", "unauthorized": "http_401",
	}
	faults := map[string]mockllm.Faults{
		"f429": {HTTP429: 1}, "f5xx": {HTTP5xx: 1}, "disconnect": {Disconnect: 1},
		"errorevent": {ErrorEvent: 1}, "malformed": {Malformed: 1}, "notstreamed": {NotStreamed: 1},
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
	keyed := startMock(t, mockllm.Config{APIKey: "sk-another-key-entirely"})
	hs := startHelper(t)
	env := map[string]string{"LLMSTREAM_HELPER": hs.URL(), "KEY": testKey, "APIS": strings.Join(newAPIs, ",")}
	env["LLM_BASE_URL"], env["MODELS"] = mockURL, strings.Join(names, ",")
	rs := results(t, run(t, script(t, newerScript), env, k6sim.Config{}, false))
	env["LLM_BASE_URL"], env["MODELS"] = keyed, "unauthorized"
	res := run(t, script(t, newerScript), env, k6sim.Config{}, false)
	assertNoKey(t, res)
	rs = append(rs, results(t, res)...)
	if len(rs) != len(newAPIs)*(len(names)+1) {
		t.Fatalf("%d results, want %d", len(rs), len(newAPIs)*(len(names)+1))
	}
	for _, r := range rs {
		_, model, _ := strings.Cut(r.Tag, " ")
		if r.OK || r.ErrorKind != wantKind[model] || r.TPOT != nil {
			t.Errorf("%s: ok %v kind %q (%v) tpot %v, want %q", r.Tag, r.OK, r.ErrorKind, r.Error, r.TPOT, wantKind[model])
		}
	}
	for _, s := range res.Of("llm_requests_failed") {
		if s.Value != 1 || s.Tags["error"] != "http_401" || s.Tags["status"] != "401" {
			t.Errorf("llm_requests_failed %v tags %v", s.Value, s.Tags)
		}
	}
}

func TestCachedTokensAndServerTimingsBecomeSamples(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, map[string]answer{
		"cached": {status: 200, body: recordJSON(with(okRecord(), "cached_input_tokens", 5))},
		"server": {status: 200, body: recordJSON(with(okRecord(), "server_prefill_ms", 12.5, "server_decode_ms", 26,
			"server_tpot_ms", 3.25, "server_prompt_tokens", 4, "server_output_tokens", 8))},
		"decodeonly": {status: 200, body: recordJSON(with(okRecord(), "server_prefill_ms", nil, "server_decode_ms", 16,
			"server_prompt_tokens", 0, "server_output_tokens", 8))},
	})
	path := script(t, `
const c = new Client({ baseURL: 'http://h:1', api: 'ollama' });
export default function () {
  for (const p of ['cached', 'server', 'decodeonly', 'plain']) {
    const r = c.chat(p, { tags: { p: p } });
    r.tag = p;
    emit(r);
  }
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	got := map[string][]string{}
	for _, s := range res.Samples {
		switch s.Metric {
		case "llm_cached_input_tokens", "llm_server_prefill", "llm_server_tpot":
			got[s.Metric] = append(got[s.Metric], s.Tags["p"]+"="+strconv.FormatFloat(s.Value, 'f', -1, 64))
		}
	}
	want := map[string][]string{
		"llm_cached_input_tokens": {"cached=5"},
		"llm_server_prefill":      {"server=12.5"},
		"llm_server_tpot":         {"server=3.25", "decodeonly=2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples %v, want %v", got, want)
	}
	for _, r := range results(t, res) {
		st, _ := r.Raw["server_output_tokens"].(float64)
		if (r.Tag == "server" || r.Tag == "decodeonly") != (st == 8) {
			t.Errorf("%s: raw server_output_tokens %v", r.Tag, r.Raw["server_output_tokens"])
		}
	}
}
