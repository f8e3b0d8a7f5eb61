package moduletest

import (
	"encoding/json"
	"net"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

const testKey = "sk-test-DO-NOT-LEAK-1234"

func env(h *fakeHelper, kv ...string) map[string]string {
	m := map[string]string{"LLMSTREAM_HELPER": h.srv.URL, "KEY": testKey}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// assertNoKey fails when the API key appears anywhere the run produced.
func assertNoKey(t *testing.T, res *k6sim.Result) {
	t.Helper()
	for _, line := range res.Console {
		if strings.Contains(line, testKey) {
			t.Errorf("the API key appears in console output: %q", line)
		}
	}
	for _, s := range res.Samples {
		for k, v := range s.Tags {
			if strings.Contains(v, testKey) || strings.Contains(k, testKey) {
				t.Errorf("the API key appears in tag %s of a %s sample", k, s.Metric)
			}
		}
		for k, v := range s.Metadata {
			if strings.Contains(v, testKey) {
				t.Errorf("the API key appears in metadata %s of a %s sample", k, s.Metric)
			}
		}
	}
}

func TestChatOpenAIChatSamplesTagsAndWire(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const llm = new Client({ baseURL: 'http://upstream.test:9/', apiKey: __ENV.KEY, model: 'm1', tags: { suite: 'unit' } });
export const options = { tags: { testwide: 'yes' } };
export default function () {
  const r = llm.chat({ messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 }, { tags: { prompt: 'short' } });
  check(r, { ok: (x) => x.ok });
  console.log('client ' + JSON.stringify(llm));
  emit(r);
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	assertNoKey(t, res)

	reqs := h.requests()
	if len(reqs) != 1 {
		t.Fatalf("helper got %d requests, want 1", len(reqs))
	}
	w := reqs[0]
	if w.URL != "http://upstream.test:9/v1/chat/completions" || w.API != "openai-chat" {
		t.Errorf("wire url/api = %q %q", w.URL, w.API)
	}
	if w.Headers["Authorization"] != "Bearer "+testKey || len(w.Headers) != 1 {
		t.Errorf("wire headers = %v, want only the bearer key", w.Headers)
	}
	if w.Body["model"] != "m1" || w.Body["max_tokens"] != float64(5) || w.prompt() != "hello" {
		t.Errorf("wire body = %v", w.Body)
	}
	if _, has := w.Body["stream"]; has {
		t.Errorf("the module must leave stream to the helper: body %v", w.Body)
	}
	if w.IncludeUsage == nil || !*w.IncludeUsage || w.TimeoutMS == nil || *w.TimeoutMS != 120000 || w.IdleTimeoutMS != nil {
		t.Errorf("wire include_usage/timeout_ms/idle_timeout_ms = %v %v %v", w.IncludeUsage, w.TimeoutMS, w.IdleTimeoutMS)
	}
	if w.Samples == nil || w.Samples.ITL != "all" || w.Samples.Stages || w.Samples.SLO != nil || w.KeepText || w.KeepTimeline {
		t.Errorf("wire samples/keep_text/keep_timeline = %+v %v %v", w.Samples, w.KeepText, w.KeepTimeline)
	}
	if !regexp.MustCompile(`^[0-9a-z]{12}-1-1$`).MatchString(w.ID) {
		t.Errorf("wire id %q, want a random 12-character prefix, the VU and the sequence", w.ID)
	}
	if w.HopContentType != "application/json" || w.HopAuth != "" {
		t.Errorf("hop content-type %q, authorization %q", w.HopContentType, w.HopAuth)
	}

	rs := results(t, res)
	if len(rs) != 1 {
		t.Fatalf("%d results", len(rs))
	}
	r := rs[0]
	if !r.OK || r.Status != 200 || r.Error != nil || r.ErrorKind != "" || r.Model != "fake-model-2025" || r.API != "openai-chat" {
		t.Errorf("result head = %+v", r)
	}
	if *r.TTFT != 20.25 || *r.TPOT != 8.125 || *r.E2E != 52.75 || r.TTFTAnswer != nil {
		t.Errorf("result times ttft %v tpot %v e2e %v ttftAnswer %v", *r.TTFT, *r.TPOT, *r.E2E, r.TTFTAnswer)
	}
	if !reflect.DeepEqual(r.ITL, []float64{8, 8.5, 7.75, 8.25}) || r.OutputTokens != 5 || r.InputTokens != 12 || r.TokenSource != "usage" || r.FinishReason != "length" {
		t.Errorf("result itl/tokens = %v %d %d %q %q", r.ITL, r.OutputTokens, r.InputTokens, r.TokenSource, r.FinishReason)
	}
	if r.Warmup || r.RequestID != w.ID || r.SLOMet != nil || r.Text != nil || r.Raw["version"] != float64(3) {
		t.Errorf("result warmup %v id %q sloMet %v text %v raw %v", r.Warmup, r.RequestID, r.SLOMet, r.Text, r.Raw)
	}

	// Metric declarations: names, types, time flags; no llm_slo_met without slo.
	wantTypes := map[string]k6sim.MetricInfo{
		"llm_ttft":            {Name: "llm_ttft", Type: k6sim.Trend, IsTime: true},
		"llm_ttft_answer":     {Name: "llm_ttft_answer", Type: k6sim.Trend, IsTime: true},
		"llm_tpot":            {Name: "llm_tpot", Type: k6sim.Trend, IsTime: true},
		"llm_itl":             {Name: "llm_itl", Type: k6sim.Trend, IsTime: true},
		"llm_e2e":             {Name: "llm_e2e", Type: k6sim.Trend, IsTime: true},
		"llm_output_tokens":   {Name: "llm_output_tokens", Type: k6sim.Counter},
		"llm_input_tokens":    {Name: "llm_input_tokens", Type: k6sim.Counter},
		"llm_requests_failed": {Name: "llm_requests_failed", Type: k6sim.Rate},
	}
	for name, want := range wantTypes {
		if got := res.Metrics[name]; got != want {
			t.Errorf("metric %s declared as %+v, want %+v", name, got, want)
		}
	}
	if _, ok := res.Metrics["llm_slo_met"]; ok {
		t.Error("llm_slo_met declared although no Client has an slo")
	}

	got := llmSamples(res)
	wantVals := map[string][]float64{
		"llm_ttft": {20.25}, "llm_tpot": {8.125}, "llm_e2e": {52.75}, "llm_itl": {8, 8.5, 7.75, 8.25},
		"llm_output_tokens": {5}, "llm_input_tokens": {12}, "llm_requests_failed": {0},
		"llm_itl_zero_gaps": {0},   // one per request: its zero gaps
		"llm_itl_max":       {8.5}, // one per request: its longest gap
	}
	if !reflect.DeepEqual(sortedKeys(got), sortedKeys(wantVals)) {
		t.Errorf("metrics with samples = %v, want %v", sortedKeys(got), sortedKeys(wantVals))
	}
	wantTags := map[string]string{
		"model": "fake-model-2025", "api": "openai-chat", "status": "200", "error": "", "token_source": "usage",
		"suite": "unit", "prompt": "short", "testwide": "yes", "scenario": "default", "group": "",
	}
	for name, want := range wantVals {
		if !reflect.DeepEqual(values(got[name]), want) {
			t.Errorf("%s values = %v, want %v", name, values(got[name]), want)
		}
		for _, s := range got[name] {
			if !reflect.DeepEqual(s.Tags, wantTags) {
				t.Errorf("%s tags = %v\nwant %v", name, s.Tags, wantTags)
			}
			if !reflect.DeepEqual(s.Metadata, map[string]string{"llm_request_id": w.ID}) {
				t.Errorf("%s metadata = %v", name, s.Metadata)
			}
		}
	}
	// The hop is one http_reqs sample named llmstream-helper, its url tag too.
	hops := res.Of("http_reqs")
	if len(hops) != 1 || hops[0].Tags["name"] != "llmstream-helper" || hops[0].Tags["url"] != "llmstream-helper" || hops[0].Tags["method"] != "POST" {
		t.Errorf("hop samples = %+v", hops)
	}
	// The metadata is removed after the request's samples: the check after it has none.
	for _, s := range res.Of("checks") {
		if s.Metadata != nil {
			t.Errorf("checks sample has metadata %v left over", s.Metadata)
		}
	}
	for _, line := range res.Console {
		if strings.Contains(line, "client ") && strings.Contains(line, "Bearer") {
			t.Errorf("JSON.stringify(client) shows headers: %s", line)
		}
	}
}

func TestDialectsURLsAndHeaders(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const clients = {
  chatv1: new Client({ baseURL: 'http://h:1/v1', apiKey: __ENV.KEY, model: 'm' }),
  chatv1slash: new Client({ baseURL: 'http://h:1/v1/', model: 'm' }),
  completions: new Client({ baseURL: 'http://h:1', api: 'openai-completions', apiKey: __ENV.KEY, model: 'c' }),
  anthropic: new Client({ baseURL: 'http://h:1/v1', api: 'anthropic-messages', apiKey: __ENV.KEY, model: 'claude' }),
  anthropicver: new Client({ baseURL: 'http://h:1', api: 'anthropic-messages', anthropicVersion: '2099-01-01', model: 'claude', headers: { 'anthropic-beta': 'x' } }),
  azure: new Client({ baseURL: 'https://h.example/openai/deployments/d/', path: '/chat/completions?api-version=2024-06-01', apiKey: __ENV.KEY, headers: { 'api-key': 'k2' } }),
  body: new Client({ baseURL: 'http://h:1', model: 'm', body: { temperature: 0, max_tokens: 9 } }),
};
export default function () {
  for (const name of Object.keys(clients)) {
    const r = clients[name].chat(name);
    r.tag = name + ' ' + clients[name].endpoint;
    emit(r);
  }
  clients.body.chat({ messages: [{ role: 'user', content: 'override' }], max_tokens: 3, model: 'other' });
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	assertNoKey(t, res)
	byPrompt := map[string]wireRequest{}
	for _, w := range h.requests() {
		byPrompt[w.prompt()] = w
	}
	cases := []struct {
		name, url, api string
		headers        map[string]string
		body           map[string]any
	}{
		{"chatv1", "http://h:1/v1/chat/completions", "openai-chat", map[string]string{"Authorization": "Bearer " + testKey},
			map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "chatv1"}}}},
		{"chatv1slash", "http://h:1/v1/chat/completions", "openai-chat", map[string]string{},
			map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "chatv1slash"}}}},
		{"completions", "http://h:1/v1/completions", "openai-completions", map[string]string{"Authorization": "Bearer " + testKey},
			map[string]any{"model": "c", "prompt": "completions"}},
		{"anthropic", "http://h:1/v1/messages", "anthropic-messages", map[string]string{"x-api-key": testKey, "anthropic-version": endpoints.AnthropicVersion},
			map[string]any{"model": "claude", "max_tokens": float64(1024), "messages": []any{map[string]any{"role": "user", "content": "anthropic"}}}},
		{"anthropicver", "http://h:1/v1/messages", "anthropic-messages", map[string]string{"anthropic-version": "2099-01-01", "anthropic-beta": "x"},
			map[string]any{"model": "claude", "max_tokens": float64(1024), "messages": []any{map[string]any{"role": "user", "content": "anthropicver"}}}},
		{"azure", "https://h.example/openai/deployments/d/chat/completions?api-version=2024-06-01", "openai-chat", map[string]string{"Authorization": "Bearer " + testKey, "api-key": "k2"},
			map[string]any{"messages": []any{map[string]any{"role": "user", "content": "azure"}}}},
		{"body", "http://h:1/v1/chat/completions", "openai-chat", map[string]string{},
			map[string]any{"model": "m", "temperature": float64(0), "max_tokens": float64(9), "messages": []any{map[string]any{"role": "user", "content": "body"}}}},
		{"override", "http://h:1/v1/chat/completions", "openai-chat", map[string]string{},
			map[string]any{"model": "other", "temperature": float64(0), "max_tokens": float64(3), "messages": []any{map[string]any{"role": "user", "content": "override"}}}},
	}
	for _, c := range cases {
		w, ok := byPrompt[c.name]
		if !ok {
			t.Errorf("%s: no request reached the helper", c.name)
			continue
		}
		if w.URL != c.url || w.API != c.api {
			t.Errorf("%s: url %q api %q, want %q %q", c.name, w.URL, w.API, c.url, c.api)
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

func TestFailuresAreCountedWithTheirKind(t *testing.T) {
	t.Parallel()
	midstream := with(okRecord(), "ok", false, "error", map[string]any{"kind": "reset_midstream", "message": "connection reset"},
		"tpot_ms", nil, "itl_ms", []float64{9, 11}, "output_tokens", 3, "input_tokens", 0, "token_source", "events", "e2e_ms", 40.5)
	h := newFakeHelper(t, map[string]answer{
		"429":       {status: 200, body: recordJSON(failedRecord("http_429", 429))},
		"5xx":       {status: 200, body: recordJSON(failedRecord("http_5xx", 503))},
		"midstream": {status: 200, body: recordJSON(midstream)},
		"h400":      {status: 400, body: `{"error":{"kind":"helper_bad_request","message":"missing url"}}`},
		"h401":      {status: 401, body: `{"error":{"kind":"helper_unauthorized","message":"token required"}}`},
		"h403":      {status: 403, body: `{"error":{"kind":"helper_forbidden","message":"host h:1 is not allowed; see --allow"}}`},
		"h413":      {status: 413, body: `{"error":{"kind":"helper_too_large","message":"body over 4MiB"}}`},
		"h500text":  {status: 500, body: `plain text failure`},
		"notjson":   {status: 200, body: `<html>proxy</html>`},
		"norecord":  {status: 200, body: `{"hello":"world"}`},
		"okfalse":   {status: 200, body: recordJSON(with(okRecord(), "ok", false))},
	})
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1', apiKey: __ENV.KEY, model: 'req-model' });
const prompts = ['429', '5xx', 'midstream', 'h400', 'h401', 'h403', 'h413', 'h500text', 'notjson', 'norecord', 'okfalse'];
export default function () {
  for (const p of prompts) {
    const r = llm.chat(p, { tags: { case: p } });
    r.tag = p;
    emit(r);
  }
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	assertNoKey(t, res)
	want := map[string]struct {
		kind, msg, status string
		ttft, itl, e2e    int
		model             string
	}{
		"429":       {"http_429", "upstream said no", "429", 0, 0, 1, "fake-model-2025"},
		"5xx":       {"http_5xx", "upstream said no", "503", 0, 0, 1, "fake-model-2025"},
		"midstream": {"reset_midstream", "connection reset", "200", 1, 2, 1, "fake-model-2025"},
		"h400":      {"helper", "helper answered 400: helper_bad_request: missing url", "0", 0, 0, 0, "req-model"},
		"h401":      {"helper", "helper answered 401: helper_unauthorized: token required", "0", 0, 0, 0, "req-model"},
		"h403":      {"helper", "helper answered 403: helper_forbidden: host h:1 is not allowed", "0", 0, 0, 0, "req-model"},
		"h413":      {"helper", "helper answered 413: helper_too_large", "0", 0, 0, 0, "req-model"},
		"h500text":  {"helper", "helper answered 500: plain text failure", "0", 0, 0, 0, "req-model"},
		"notjson":   {"helper", "not JSON", "0", 0, 0, 0, "req-model"},
		"norecord":  {"helper", "without a record", "0", 0, 0, 0, "req-model"},
		"okfalse":   {"helper", "ok=false but no error", "200", 1, 4, 1, "fake-model-2025"},
	}
	rs := results(t, res)
	if len(rs) != len(want) {
		t.Fatalf("%d results, want %d", len(rs), len(want))
	}
	for _, r := range rs {
		w := want[r.Tag]
		if r.OK || r.Error == nil || r.ErrorKind != w.kind || r.Error.Kind != w.kind || !strings.Contains(r.Error.Message, w.msg) {
			t.Errorf("%s: ok %v error %+v, want kind %q message containing %q", r.Tag, r.OK, r.Error, w.kind, w.msg)
		}
		if r.TPOT != nil {
			t.Errorf("%s: tpot %v for a failed request", r.Tag, *r.TPOT)
		}
	}
	// One llm_requests_failed sample of 1 per request, tagged with the kind.
	count := map[string]map[string]int{}
	for _, s := range res.Samples {
		if !strings.HasPrefix(s.Metric, "llm_") {
			continue
		}
		c := s.Tags["case"]
		if count[c] == nil {
			count[c] = map[string]int{}
		}
		count[c][s.Metric]++
		w := want[c]
		if s.Tags["error"] != w.kind || s.Tags["status"] != w.status || s.Tags["model"] != w.model {
			t.Errorf("%s: %s tags %v, want error %q status %q model %q", c, s.Metric, s.Tags, w.kind, w.status, w.model)
		}
		if s.Metric == "llm_requests_failed" && s.Value != 1 {
			t.Errorf("%s: llm_requests_failed = %v", c, s.Value)
		}
		if s.Metric == "llm_tpot" {
			t.Errorf("%s: a failed request added llm_tpot", c)
		}
	}
	for c, w := range want {
		got := count[c]
		if got["llm_requests_failed"] != 1 || got["llm_ttft"] != w.ttft || got["llm_itl"] != w.itl || got["llm_e2e"] != w.e2e ||
			got["llm_output_tokens"] != 1 || got["llm_input_tokens"] != 1 {
			t.Errorf("%s: samples per metric %v, want failed 1, ttft %d, itl %d, e2e %d, tokens 1+1", c, got, w.ttft, w.itl, w.e2e)
		}
	}
	// Tokens that arrived before a failure are counted.
	for _, s := range res.Of("llm_output_tokens") {
		if s.Tags["case"] == "midstream" && s.Value != 3 {
			t.Errorf("midstream output tokens = %v, want 3", s.Value)
		}
	}
}

func TestHelperUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1', model: 'm', timeout: '2s' });
export default async function () {
  emit(llm.chat('sync'));
  emit(await llm.asyncChat('async'));
}
`)
	res := run(t, path, map[string]string{"LLMSTREAM_HELPER": dead}, k6sim.Config{}, false)
	rs := results(t, res)
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2", len(rs))
	}
	for _, r := range rs {
		if r.OK || r.ErrorKind != "helper" || !strings.Contains(r.Error.Message, "did not answer") || !strings.Contains(r.Error.Message, "LLMSTREAM_HELPER") {
			t.Errorf("result %+v, want a helper error saying it did not answer", r.Error)
		}
	}
	f := res.Of("llm_requests_failed")
	if len(f) != 2 || f[0].Value != 1 || f[1].Value != 1 || f[0].Tags["error"] != "helper" {
		t.Errorf("llm_requests_failed samples = %+v", f)
	}
	if n := len(res.Of("llm_e2e")); n != 0 {
		t.Errorf("%d llm_e2e samples for requests that never reached the helper", n)
	}
}

func TestITLTokensFractionAndOff(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, map[string]answer{
		"multi": {status: 200, body: recordJSON(with(okRecord(), "itl_ms", []float64{10, 30, 8}, "itl_tokens", []int{1, 3, 2}))},
		"eight": {status: 200, body: recordJSON(with(okRecord(), "itl_ms", []float64{1, 2, 3, 4, 5, 6, 7, 8}))},
	})
	path := script(t, `
const all = new Client({ baseURL: 'http://h:1', tags: { c: 'all' } });
const quarter = new Client({ baseURL: 'http://h:1', itl: 0.25, tags: { c: 'quarter' } });
const off = new Client({ baseURL: 'http://h:1', itl: 'off', tags: { c: 'off' } });
export default function () {
  all.chat('multi');
  quarter.chat('eight');
  quarter.chat('eight');
  off.chat('eight');
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	byClient := map[string][]float64{}
	for _, s := range res.Of("llm_itl") {
		byClient[s.Tags["c"]] = append(byClient[s.Tags["c"]], s.Value)
	}
	if want := []float64{10, 10, 10, 10, 4, 4}; !reflect.DeepEqual(byClient["all"], want) {
		t.Errorf("itl with itl_tokens = %v, want %v (a gap closed by k tokens is k samples of gap/k)", byClient["all"], want)
	}
	// itl: 0.25 keeps every 4th gap of each request, from a start drawn from
	// the request id: 8 gaps keep exactly 2, four apart.
	q := byClient["quarter"]
	if len(q) != 4 || q[1]-q[0] != 4 || q[3]-q[2] != 4 {
		t.Errorf("itl: 0.25 kept %v, want 2 of each request's 8 gaps, 4 apart", q)
	}
	if len(byClient["off"]) != 0 {
		t.Errorf("itl: 'off' added %v", byClient["off"])
	}
	reqs := h.requests()
	if last := reqs[len(reqs)-1]; last.Samples == nil || last.Samples.ITL != "off" {
		t.Errorf("itl: 'off' should ask the helper for no ITL samples, sent %+v", last.Samples)
	}
	if q := reqs[1].Samples; q == nil || q.ITL != "fraction" || q.Fraction != 0.25 {
		t.Errorf("itl: 0.25 sent %+v", q)
	}
}

func TestWarmupPerVU(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1', warmup: 2 });
export const options = { scenarios: { w: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } } };
export default function () {
  for (let i = 0; i < 2; i++) {
    const r = llm.chat('x');
    r.tag = String(__VU);
    emit(r);
  }
}
`)
	res := run(t, path, env(h), k6sim.Config{VUs: 2, Iterations: 2}, false)
	warm := map[string][]bool{}
	for _, r := range results(t, res) {
		warm[r.Tag] = append(warm[r.Tag], r.Warmup)
		if !regexp.MustCompile(`^[0-9a-z]{12}-` + r.Tag + `-\d+$`).MatchString(r.RequestID) {
			t.Errorf("request id %q is not <random prefix>-%s-<seq>", r.RequestID, r.Tag)
		}
	}
	want := []bool{true, true, false, false}
	if !reflect.DeepEqual(warm["1"], want) || !reflect.DeepEqual(warm["2"], want) {
		t.Errorf("warmup flags per VU = %v, want %v each", warm, want)
	}
	if len(h.requests()) != 8 {
		t.Errorf("helper got %d requests, want 8 (warm-up requests are made too)", len(h.requests()))
	}
	perVU := map[int]int{}
	for _, s := range res.Of("llm_requests_failed") {
		perVU[s.VU]++
	}
	if !reflect.DeepEqual(perVU, map[int]int{1: 2, 2: 2}) {
		t.Errorf("llm_requests_failed samples per VU = %v, want 2 each", perVU)
	}
}

func TestSLO(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, map[string]answer{
		"slowttft":  {status: 200, body: recordJSON(with(okRecord(), "ttft_ms", 30))},
		"onetoken":  {status: 200, body: recordJSON(with(okRecord(), "tpot_ms", nil, "output_tokens", 1, "itl_ms", []float64{}))},
		"slowtpot":  {status: 200, body: recordJSON(with(okRecord(), "tpot_ms", 9.5))},
		"failed":    {status: 200, body: recordJSON(failedRecord("http_5xx", 500))},
		"reasoning": {status: 200, body: recordJSON(with(okRecord(), "ttft_answer_ms", 40))},
		"slowe2e":   {status: 200, body: recordJSON(with(okRecord(), "e2e_ms", 2500))},
	})
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1', slo: { ttft: '25ms', tpot: 9, ttftAnswer: '0.035s', e2e: '2s' } });
const plain = new Client({ baseURL: 'http://h:1', tags: { plain: 'yes' } });
export default function () {
  for (const p of ['fast', 'slowttft', 'onetoken', 'slowtpot', 'failed', 'reasoning', 'slowe2e']) {
    const r = llm.chat(p, { tags: { case: p } });
    r.tag = p;
    emit(r);
  }
  plain.chat('fast');
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	want := map[string]bool{"fast": true, "slowttft": false, "onetoken": true, "slowtpot": false, "failed": false, "reasoning": false, "slowe2e": false}
	for _, r := range results(t, res) {
		if r.SLOMet == nil || *r.SLOMet != want[r.Tag] {
			t.Errorf("%s: sloMet = %v, want %v", r.Tag, r.SLOMet, want[r.Tag])
		}
	}
	if mi := res.Metrics["llm_slo_met"]; mi.Type != k6sim.Rate {
		t.Errorf("llm_slo_met declared as %+v, want a Rate", mi)
	}
	got := map[string]float64{}
	for _, s := range res.Of("llm_slo_met") {
		if s.Tags["plain"] == "yes" {
			t.Error("a Client without slo added an llm_slo_met sample")
		}
		got[s.Tags["case"]] = s.Value
	}
	if len(got) != len(want) {
		t.Errorf("llm_slo_met samples for %v, want one per request of the slo Client", got)
	}
	for c, ok := range want {
		if (got[c] == 1) != ok {
			t.Errorf("%s: llm_slo_met = %v, want %v", c, got[c], ok)
		}
	}
}

func TestSLOClientOutsideInitContext(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
export default function () {
  new Client({ baseURL: 'http://h:1', slo: { ttft: '1s' } });
}
`)
	res := run(t, path, env(h), k6sim.Config{}, true)
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Err, "must be created in the init context") {
		t.Errorf("errors = %v, want one saying a Client with slo must be created in the init context", res.Errors)
	}
}

func TestAsyncChatHoldsSeveralStreams(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, map[string]answer{
		"a":   {status: 200, body: recordJSON(okRecord()), hold: 3},
		"b":   {status: 200, body: recordJSON(with(okRecord(), "ttft_ms", 30)), hold: 3},
		"c":   {status: 200, body: recordJSON(with(okRecord(), "ttft_ms", 40)), hold: 3},
		"bad": {status: 400, body: `{"error":{"kind":"helper_bad_request","message":"no"}}`},
	})
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1' });
export default async function () {
  const rs = await Promise.all([llm.asyncChat('a'), llm.asyncChat('b'), llm.asyncChat('c')]);
  for (const r of rs) emit(r);
  const bad = await llm.asyncChat('bad');
  bad.tag = 'bad';
  emit(bad);
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	h.mu.Lock()
	maxIn := h.maxInflight
	h.mu.Unlock()
	if maxIn != 3 {
		t.Errorf("at most %d requests were in flight at once, want 3 (asyncChat must not serialise)", maxIn)
	}
	rs := results(t, res)
	if len(rs) != 4 {
		t.Fatalf("%d results", len(rs))
	}
	ids := map[string]bool{}
	for _, r := range rs[:3] {
		if !r.OK {
			t.Errorf("async result not ok: %+v", r.Error)
		}
		ids[r.RequestID] = true
	}
	if len(ids) != 3 {
		t.Errorf("request ids %v are not distinct", ids)
	}
	if rs[3].OK || rs[3].ErrorKind != "helper" {
		t.Errorf("a refused asyncChat resolves with a helper error, got %+v", rs[3])
	}
	ttft := values(res.Of("llm_ttft"))
	if len(ttft) != 3 {
		t.Errorf("llm_ttft samples %v, want 3", ttft)
	}
	metaIDs := map[string]bool{}
	for _, s := range res.Of("llm_requests_failed") {
		metaIDs[s.Metadata["llm_request_id"]] = true
	}
	if len(metaIDs) != 4 {
		t.Errorf("llm_request_id metadata values %v, want 4 distinct", metaIDs)
	}
}

func TestOptionsReachTheWire(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, map[string]answer{
		"text": {status: 200, body: recordJSON(with(okRecord(), "text", "hello world", "reasoning", "hmm", "timeline", []map[string]any{{"at_ms": 1, "text": true, "tokens": 0, "server_ns": 5}}))},
	})
	path := script(t, `
import exec from 'k6/execution';
const llm = new Client({ baseURL: 'http://h:1', timeout: '1m', idleTimeout: 1500, includeUsage: false, helperToken: 'tok-1' });
const fromEnv = new Client({ baseURL: 'http://h:1' });
export default function () {
  llm.chat('defaults');
  exec.vu.metrics.metadata.llm_request_id = 'mine';
  const r = llm.chat('text', { timeout: '2.5s', idleTimeout: '750ms', keepText: true, keepTimeline: true });
  console.log('META ' + exec.vu.metrics.metadata.llm_request_id);
  emit(r);
  fromEnv.chat('envtoken');
}
`)
	res := run(t, path, env(h, "LLMSTREAM_HELPER_TOKEN", "tok-env"), k6sim.Config{}, false)
	byPrompt := map[string]wireRequest{}
	for _, w := range h.requests() {
		byPrompt[w.prompt()] = w
	}
	d := byPrompt["defaults"]
	if *d.TimeoutMS != 60000 || *d.IdleTimeoutMS != 1500 || *d.IncludeUsage || d.HopAuth != "Bearer tok-1" {
		t.Errorf("client options on the wire: timeout %v idle %v include_usage %v hop auth %q", *d.TimeoutMS, *d.IdleTimeoutMS, *d.IncludeUsage, d.HopAuth)
	}
	x := byPrompt["text"]
	if *x.TimeoutMS != 2500 || *x.IdleTimeoutMS != 750 || !x.KeepText || !x.KeepTimeline {
		t.Errorf("call options on the wire: timeout %v idle %v keep_text %v keep_timeline %v", *x.TimeoutMS, *x.IdleTimeoutMS, x.KeepText, x.KeepTimeline)
	}
	if e := byPrompt["envtoken"]; e.HopAuth != "Bearer tok-env" {
		t.Errorf("LLMSTREAM_HELPER_TOKEN not sent: hop auth %q", e.HopAuth)
	}
	rs := results(t, res)
	if len(rs) != 1 || rs[0].Text == nil || *rs[0].Text != "hello world" || *rs[0].Reasoning != "hmm" || len(rs[0].Timeline) != 1 {
		t.Errorf("keepText/keepTimeline result = %+v", rs)
	}
	restored := false
	for _, line := range res.Console {
		restored = restored || strings.HasSuffix(line, "META mine")
	}
	if !restored {
		t.Error("the script's own llm_request_id metadata was not restored after the request")
	}
	for _, s := range res.Of("llm_ttft") {
		if id := s.Metadata["llm_request_id"]; id == "mine" || id == "" {
			t.Errorf("llm_ttft sample carries metadata id %q, want the request's own", id)
		}
	}
}

func TestClientOptionErrors(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const cases = {
  nobase: {},
  badbase: { baseURL: 'h:1' },
  badapi: { baseURL: 'http://h:1', api: 'openai-realtime' },
  unknown: { baseURL: 'http://h:1', apikey: 'x' },
  itl: { baseURL: 'http://h:1', itl: 2 },
  warmup: { baseURL: 'http://h:1', warmup: -1 },
  slokey: { baseURL: 'http://h:1', slo: { ttfb: '1s' } },
  sloempty: { baseURL: 'http://h:1', slo: {} },
  timeout: { baseURL: 'http://h:1', timeout: 'soon' },
  zerotimeout: { baseURL: 'http://h:1', timeout: 0 },
  zeroidle: { baseURL: 'http://h:1', idleTimeout: '0s' },
  tags: { baseURL: 'http://h:1', tags: { a: { b: 1 } } },
  helper: { baseURL: 'http://h:1', helper: 'localhost:1' },
};
for (const name of Object.keys(cases)) {
  try {
    new Client(cases[name]);
    console.log('CASE ' + name + ' => no error');
  } catch (e) {
    console.log('CASE ' + name + ' => ' + e.message);
  }
}
export default function () {}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	want := map[string]string{
		"nobase":      "baseURL is required",
		"badbase":     "must start with http:// or https://",
		"badapi":      `unknown api "openai-realtime"`,
		"unknown":     `unknown option "apikey"`,
		"itl":         "itl must be 'all', 'off', 'records' or a fraction",
		"warmup":      "warmup must be a whole number",
		"slokey":      `slo: unknown limit "ttfb"`,
		"sloempty":    "slo has no limits",
		"timeout":     `timeout: "soon" is not a duration`,
		"zerotimeout": "timeout must be greater than zero",
		"zeroidle":    "idleTimeout must be greater than zero",
		"tags":        "tags.a must be a string, number or boolean",
		"helper":      `helper URL "localhost:1" must start with http://`,
	}
	got := map[string]string{}
	for _, line := range res.Console {
		if i := strings.Index(line, "CASE "); i >= 0 {
			name, msg, _ := strings.Cut(line[i+5:], " => ")
			got[name] = msg
		}
	}
	for name, w := range want {
		if !strings.Contains(got[name], w) {
			t.Errorf("%s: error %q, want it to contain %q", name, got[name], w)
		}
	}
}

func TestNoHelperIsAClearInitError(t *testing.T) {
	t.Parallel()
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1' });
export default function () {}
`)
	_, err := k6sim.Run(t.Context(), k6sim.Config{Script: path})
	if err == nil || !strings.Contains(err.Error(), "xk6-llmstream run") || !strings.Contains(err.Error(), "LLMSTREAM_HELPER") {
		t.Errorf("error = %v, want one that says to use xk6-llmstream run or set LLMSTREAM_HELPER", err)
	}
}

func TestDurationAndEndpointHelpers(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const d = ['250ms', '2s', '1m30s', '1.5h', '100us', '100µs', '1500', 42.5, '1d', '3s500ms'];
const u = [
  ['http://h:1', 'openai-chat'], ['http://h:1/', 'openai-completions'], ['http://h:1/v1', 'anthropic-messages'],
  ['https://api.example.com/v1/', 'openai-chat'], ['http://h:1/prefix', 'openai-chat'],
];
export default function () {
  console.log('DUR ' + JSON.stringify(d.map((x) => llmstream.durationMs(x))));
  console.log('URL ' + JSON.stringify(u.map((x) => llmstream.endpointURL(x[0], x[1]))));
  for (const bad of ['', '2 s', 's', '-1s', '1x', null]) {
    try { llmstream.durationMs(bad, 'x'); console.log('BAD no error'); } catch (e) { console.log('BAD ' + e.message); }
  }
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	var dur []float64
	var urls []string
	bad := 0
	for _, line := range res.Console {
		if i := strings.Index(line, "DUR "); i >= 0 {
			if err := json.Unmarshal([]byte(line[i+4:]), &dur); err != nil {
				t.Fatal(err)
			}
		}
		if i := strings.Index(line, "URL "); i >= 0 {
			if err := json.Unmarshal([]byte(line[i+4:]), &urls); err != nil {
				t.Fatal(err)
			}
		}
		if strings.Contains(line, "BAD ") {
			if strings.Contains(line, "is not a duration") {
				bad++
			} else {
				t.Errorf("bad duration accepted or wrong message: %s", line)
			}
		}
	}
	if want := []float64{250, 2000, 90000, 5400000, 0.1, 0.1, 1500, 42.5, 86400000, 3500}; !reflect.DeepEqual(dur, want) {
		t.Errorf("durations = %v, want %v", dur, want)
	}
	wantURLs := []string{
		"http://h:1/v1/chat/completions", "http://h:1/v1/completions", "http://h:1/v1/messages",
		"https://api.example.com/v1/chat/completions", "http://h:1/prefix/v1/chat/completions",
	}
	if !reflect.DeepEqual(urls, wantURLs) {
		t.Errorf("endpoints = %v, want %v", urls, wantURLs)
	}
	if bad != 6 {
		t.Errorf("%d bad durations refused, want 6", bad)
	}
}

func TestManyVUsLoseNothing(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, map[string]answer{
		"fail": {status: 200, body: recordJSON(failedRecord("http_429", 429))},
	})
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1' });
export default function () {
  llm.chat(__ITER % 3 === 0 ? 'fail' : 'ok');
}
`)
	res := run(t, path, env(h), k6sim.Config{VUs: 4, Iterations: 60}, false)
	f := res.Of("llm_requests_failed")
	if len(f) != 60 || len(h.requests()) != 60 {
		t.Fatalf("%d llm_requests_failed samples and %d helper requests for 60 iterations", len(f), len(h.requests()))
	}
	var failed float64
	for _, s := range f {
		failed += s.Value
	}
	// __ITER counts per VU, so which requests fail depends on how iterations
	// spread over VUs; the sum of tagged failures must match either way.
	tagged := 0
	for _, s := range f {
		if s.Tags["error"] == "http_429" {
			tagged++
		}
	}
	if float64(tagged) != failed || failed == 0 {
		t.Errorf("%v failures counted, %d tagged http_429", failed, tagged)
	}
}

// TestHopStatusFollowsLLMFailures: the helper answers a failed LLM request with
// a non-2xx status and the record (issue 11, item 8). The module must read that
// record (the LLM's kind, not "helper"), so k6's http_req_failed follows
// llm_requests_failed, while a refusal by the helper stays kind "helper".
func TestHopStatusFollowsLLMFailures(t *testing.T) {
	t.Parallel()
	reset := with(failedRecord("reset_midstream", 200), "ttft_ms", 5, "itl_ms", []float64{0, 9, 0})
	h := newFakeHelper(t, map[string]answer{
		"ok":      {status: 200, body: recordJSON(with(okRecord(), "client_lag_ms", 0.25))},
		"429":     {status: 429, body: recordJSON(failedRecord("http_429", 429))},
		"timeout": {status: 504, body: recordJSON(failedRecord("timeout", 0))},
		"reset":   {status: 502, body: recordJSON(reset)},
		"loop":    {status: 508, body: `{"error":{"kind":"helper_loop","message":"the request came from a helper"}}`},
	})
	path := script(t, `
const llm = new Client({ baseURL: 'http://h:1', model: 'req-model' });
export default function () {
  for (const p of ['ok', '429', 'timeout', 'reset', 'loop']) {
    const r = llm.chat(p);
    r.tag = p;
    emit(r);
  }
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	want := map[string]string{"ok": "", "429": "http_429", "timeout": "timeout", "reset": "reset_midstream", "loop": "helper"}
	for _, r := range results(t, res) {
		if r.ErrorKind != want[r.Tag] {
			t.Errorf("%s: error kind %q, want %q (%+v)", r.Tag, r.ErrorKind, want[r.Tag], r.Error)
		}
	}
	sum := func(metric string) (n float64) {
		for _, s := range res.Of(metric) {
			n += s.Value
		}
		return n
	}
	if hop, llm := sum("http_req_failed"), sum("llm_requests_failed"); hop != 4 || llm != 4 {
		t.Errorf("http_req_failed %v, llm_requests_failed %v: want both 4", hop, llm)
	}
	// One llm_itl_zero_gaps sample per request: its zero gaps.
	var zero float64
	for _, s := range res.Of("llm_itl_zero_gaps") {
		zero += s.Value
	}
	if n, want := len(res.Of("llm_itl_zero_gaps")), len(res.Of("llm_requests_failed")); n != want || zero != 2 {
		t.Errorf("llm_itl_zero_gaps: %d samples summing to %v; want %d (one per request) summing to 2", n, zero, want)
	}
	if n := len(res.Of("llm_client_lag")); n != 1 {
		t.Errorf("%d llm_client_lag samples, want 1 (the records that carry client_lag_ms)", n)
	}
}
