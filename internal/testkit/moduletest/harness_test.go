package moduletest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"fmt"
	"math"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
)

// modulePath is the absolute path of llmstream.js.
var modulePath = func() string {
	p, err := filepath.Abs("../../../xk6-llmstream/js/llmstream.js")
	if err != nil {
		panic(err)
	}
	return p
}()

// wireRequest is a POST /v1/stream body as the fake helper received it.
type wireRequest struct {
	URL           string                `json:"url"`
	API           string                `json:"api"`
	Headers       map[string]string     `json:"headers"`
	Body          map[string]any        `json:"body"`
	IncludeUsage  *bool                 `json:"include_usage"`
	TimeoutMS     *float64              `json:"timeout_ms"`
	IdleTimeoutMS *float64              `json:"idle_timeout_ms"`
	KeepText      bool                  `json:"keep_text"`
	KeepTimeline  bool                  `json:"keep_timeline"`
	Samples       *helper.SampleOptions `json:"samples"`
	ID            string                `json:"id"`
	// ScheduledUnixNS is the intended send time of open-loop load (0: none).
	ScheduledUnixNS int64 `json:"scheduled_unix_ns"`

	// Raw is the body as received.
	Raw []byte `json:"-"`
	// HopAuth is the Authorization header of the hop to the helper.
	HopAuth string `json:"-"`
	// HopContentType is the Content-Type of the hop.
	HopContentType string `json:"-"`
}

// prompt returns the request's user text: the last message's content, or the
// completions prompt.
func (w wireRequest) prompt() string {
	if p, ok := w.Body["prompt"].(string); ok {
		return p
	}
	msgs, _ := w.Body["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	s, _ := m["content"].(string)
	return s
}

// answer is what the fake helper sends back.
type answer struct {
	status int
	body   string
	// hold makes the answer wait until this many requests have arrived (or a
	// few seconds pass): when the first requests of a test hold for n, all n
	// were in flight at once.
	hold int
}

// fakeHelper answers POST /v1/stream per docs/helper-api.md with the answer
// its table holds for the request's prompt.
type fakeHelper struct {
	t   testing.TB
	srv *httptest.Server

	mu          sync.Mutex
	reqs        []wireRequest
	answers     map[string]answer
	inflight    int
	maxInflight int
	arrived     int // requests that arrived, never decremented
	cond        *sync.Cond
}

func newFakeHelper(t testing.TB, answers map[string]answer) *fakeHelper {
	t.Helper()
	f := &fakeHelper{t: t, answers: answers}
	f.cond = sync.NewCond(&f.mu)
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHelper) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/stream" {
		http.Error(w, `{"error":{"kind":"helper_bad_request","message":"no such endpoint"}}`, http.StatusNotFound)
		return
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var wr wireRequest
	if err := json.Unmarshal(b, &wr); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"kind":"helper_bad_request","message":"body is not JSON"}}`)
		return
	}
	wr.Raw = b
	wr.HopAuth = r.Header.Get("Authorization")
	wr.HopContentType = r.Header.Get("Content-Type")

	f.mu.Lock()
	f.reqs = append(f.reqs, wr)
	a, ok := f.answers[wr.prompt()]
	if !ok {
		a = answer{status: 200, body: recordJSON(okRecord())}
	}
	f.inflight++
	f.arrived++
	f.maxInflight = max(f.maxInflight, f.inflight)
	f.cond.Broadcast()
	if a.hold > 0 {
		deadline := time.Now().Add(5 * time.Second)
		wake := time.AfterFunc(5*time.Second, func() { // wake the waiters at the deadline
			f.mu.Lock()
			f.cond.Broadcast()
			f.mu.Unlock()
		})
		for f.arrived < a.hold && time.Now().Before(deadline) {
			f.cond.Wait()
		}
		wake.Stop()
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inflight--
		f.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, answerV3(f.t, a.body, wr))
}

// answerV3 turns a test's record (the fields of a timed stream, as the helper
// keeps them) into the helper's answer for the request: the samples are
// metrics.FromRecord's, with the options the module sent, so these tests
// check that the module adds exactly what the one Go definition makes. A
// body that is not such a record is sent as it is.
func answerV3(t testing.TB, body string, wr wireRequest) string {
	var m map[string]any
	if json.Unmarshal([]byte(body), &m) != nil || m["ok"] == nil || m["samples"] != nil {
		return body
	}
	ns := func(k string) *int64 {
		v, ok := m[k].(float64)
		if !ok {
			return nil
		}
		n := int64(math.Round(v * 1e6))
		return &n
	}
	num := func(k string) int { v, _ := m[k].(float64); return int(v) }
	str := func(k string) string { v, _ := m[k].(string); return v }
	rec := &records.Record{V: records.Version, ID: wr.ID, API: str("api"), Model: str("model"), Status: num("status"),
		Finish: str("finish_reason"), TTFTNS: ns("ttft_ms"), TTFTAnswerNS: ns("ttft_answer_ms"), TPOTNS: ns("tpot_ms"),
		OutputTokens: num("output_tokens"), InputTokens: num("input_tokens"), ReasoningTokens: num("reasoning_tokens"),
		CachedInputTokens: num("cached_input_tokens"), TokenSource: str("token_source"), Events: num("events"),
		ClientLagNS: ns("client_lag_ms")}
	if e := ns("e2e_ms"); e != nil {
		rec.StartNS, rec.E2ENS = 1764430000000000000, *e
	}
	if e, ok := m["error"].(map[string]any); ok {
		rec.Error = &records.Error{Kind: fmt.Sprint(e["kind"]), Message: fmt.Sprint(e["message"])}
	} else if m["ok"] == false {
		rec.Error = &records.Error{Kind: "helper"}
	}
	if rec.TTFTNS != nil {
		rec.TextNS = []int64{*rec.TTFTNS}
		gaps, _ := m["itl_ms"].([]any)
		for _, g := range gaps {
			rec.TextNS = append(rec.TextNS, int64(math.Round(g.(float64)*1e6)))
		}
		if toks, ok := m["itl_tokens"].([]any); ok {
			rec.TextTokens = []int{1}
			for _, k := range toks {
				rec.TextTokens = append(rec.TextTokens, int(k.(float64)))
			}
		}
	}
	if ns("server_prefill_ms") != nil || ns("server_decode_ms") != nil {
		rec.Server = &records.Server{OutputTokens: num("server_output_tokens"), PromptTokens: num("server_prompt_tokens")}
		if v := ns("server_prefill_ms"); v != nil {
			rec.Server.PrefillNS = *v
		}
		if v := ns("server_decode_ms"); v != nil {
			rec.Server.DecodeNS = *v
		}
	}
	if ns("stage_connect_ms") != nil {
		rec.Stages = &records.Stages{ConnectNS: *ns("stage_connect_ms"), SendNS: *ns("stage_send_ms"), WaitNS: *ns("stage_wait_ms"),
			FirstEventNS: *ns("stage_first_event_ms"), FirstTokenNS: *ns("stage_first_token_ms")}
	}
	o := &metrics.Options{}
	if so := wr.Samples; so != nil {
		o.ITL, o.Fraction, o.Stages, o.SLO, o.Prices, o.ExpectOutputTokens =
			metrics.ITLMode(so.ITL), so.Fraction, so.Stages, so.SLO, so.Prices, so.ExpectOutputTokens
	}
	tags := metrics.Tags(rec)
	m["version"] = helper.AnswerVersion
	m["id"] = wr.ID
	samples := helper.AnswerSamples(metrics.FromRecord(rec, o))
	m["samples"] = samples
	if st := samples.Tags(); st != nil {
		m["sample_tags"] = st
	}
	m["tags"] = map[string]string{"model": tags[0], "api": tags[1], "status": tags[2], "error": tags[3], "token_source": tags[4]}
	if rec.Server != nil {
		m["server"] = map[string]any{"prefill_ms": m["server_prefill_ms"], "decode_ms": m["server_decode_ms"],
			"tpot_ms": m["server_tpot_ms"], "prompt_tokens": m["server_prompt_tokens"], "output_tokens": m["server_output_tokens"]}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Errorf("answerV3: %v", err)
	}
	return string(b)
}

func (f *fakeHelper) requests() []wireRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wireRequest(nil), f.reqs...)
}

// okRecord is a successful record: 5 text events, usage tokens.
func okRecord() map[string]any {
	return map[string]any{
		"ok": true, "api": "openai-chat", "model": "fake-model-2025", "status": 200, "error": nil,
		"start_unix_ns": 1764430000000000000, "headers_ms": 1.5, "first_event_ms": 20,
		"ttft_ms": 20.25, "ttft_answer_ms": nil, "tpot_ms": 8.125, "e2e_ms": 52.75,
		"itl_ms": []float64{8, 8.5, 7.75, 8.25}, "itl_tokens": nil,
		"output_tokens": 5, "input_tokens": 12, "reasoning_tokens": 0, "token_source": "usage",
		"events": 8, "text_events": 5, "bytes": 1234, "finish_reason": "length", "tool_calls": 0,
	}
}

// failedRecord is a record for an upstream failure of the given kind.
func failedRecord(kind string, status int) map[string]any {
	r := okRecord()
	r["ok"] = false
	r["status"] = status
	r["error"] = map[string]any{"kind": kind, "message": "upstream said no"}
	r["ttft_ms"], r["tpot_ms"], r["itl_ms"] = nil, nil, []float64{}
	r["output_tokens"], r["input_tokens"], r["token_source"] = 0, 0, ""
	r["e2e_ms"] = 3.5
	r["finish_reason"] = nil
	return r
}

func recordJSON(r map[string]any) string {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// with returns a copy of rec with fields replaced.
func with(rec map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range rec {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[0+i].(string)] = kv[i+1]
	}
	return out
}

// script writes a test script that imports the module as `llmstream` (by
// file:// URL) and returns its path.
func script(t testing.TB, body string) string {
	t.Helper()
	src := "import * as llmstream from 'file://" + filepath.ToSlash(modulePath) + "';\n" +
		"import { Client } from 'file://" + filepath.ToSlash(modulePath) + "';\n" +
		"import { check } from 'k6';\n" +
		"function emit(r) { console.log('RESULT ' + JSON.stringify(r)); }\n" + body
	p := filepath.Join(t.TempDir(), "test.js")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs a script under k6sim and fails the test on load errors; iteration
// errors fail it too unless allowErrors.
func run(t *testing.T, path string, env map[string]string, cfg k6sim.Config, allowErrors bool) *k6sim.Result {
	t.Helper()
	cfg.Script = path
	cfg.Env = env
	if cfg.Sleep == nil {
		cfg.Sleep = func(time.Duration) {}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := k6sim.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("k6sim.Run(%s): %v", filepath.Base(path), err)
	}
	if !allowErrors {
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// jsResult is the module's result object as JSON.
type jsResult struct {
	OK              bool              `json:"ok"`
	Status          int               `json:"status"`
	Error           *resultError      `json:"error"`
	ErrorKind       string            `json:"errorKind"`
	Model           string            `json:"model"`
	API             string            `json:"api"`
	TTFT            *float64          `json:"ttft"`
	TTFTAnswer      *float64          `json:"ttftAnswer"`
	TPOT            *float64          `json:"tpot"`
	E2E             *float64          `json:"e2e"`
	ITL             []float64         `json:"itl"`
	OutputTokens    int               `json:"outputTokens"`
	InputTokens     int               `json:"inputTokens"`
	ReasoningTokens int               `json:"reasoningTokens"`
	TokenSource     string            `json:"tokenSource"`
	FinishReason    string            `json:"finishReason"`
	Text            *string           `json:"text"`
	Reasoning       *string           `json:"reasoning"`
	Timeline        []json.RawMessage `json:"timeline"`
	Warmup          bool              `json:"warmup"`
	RequestID       string            `json:"requestId"`
	SLOMet          *bool             `json:"sloMet"`
	Cost            *float64          `json:"cost"`
	Raw             map[string]any    `json:"raw"`
	Tag             string            `json:"tag"` // set by some test scripts
}

type resultError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// results returns the objects the script passed to emit(), in order.
func results(t *testing.T, res *k6sim.Result) []jsResult {
	t.Helper()
	var out []jsResult
	for _, line := range res.Console {
		i := strings.Index(line, "RESULT ")
		if i < 0 {
			continue
		}
		var r jsResult
		if err := json.Unmarshal([]byte(line[i+len("RESULT "):]), &r); err != nil {
			t.Fatalf("bad RESULT line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// llmSamples returns the samples of the module's metrics, grouped by metric.
func llmSamples(res *k6sim.Result) map[string][]k6sim.Sample {
	out := map[string][]k6sim.Sample{}
	for _, s := range res.Samples {
		if strings.HasPrefix(s.Metric, "llm_") {
			out[s.Metric] = append(out[s.Metric], s)
		}
	}
	return out
}

func values(ss []k6sim.Sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.Value
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
