package mockllm

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// The round-trip tests: the streaming engine (package stream) reads the mock.
// Every endpoint must decode to the text, usage and finish reason the mock
// planned; every fault must be classified as its error kind; and the engine's
// read time of each event must come after the mock's write time of it.

func TestGroundTruthFieldMatchesTheEngine(t *testing.T) {
	if GroundTruthField != stream.GroundTruthField {
		t.Fatalf("mockllm stamps %q, the engine reads %q", GroundTruthField, stream.GroundTruthField)
	}
	for d := range encoders {
		if got, ok := stream.ParseDialect(string(d)); !ok || got == stream.DialectAuto {
			t.Errorf("dialect %q is not one of the engine's", d)
		}
	}
}

func TestEngineDecodesEveryEndpoint(t *testing.T) {
	t.Parallel()
	log := &logBuffer{}
	def := ModelConfig{
		Prefill:      Prefill{Base: time.Millisecond},
		ITL:          ITL{Base: 200 * time.Microsecond, Jitter: Jitter{Dist: JitterLognormal, Sigma: 0.3}},
		OutputTokens: FixedCount(12),
	}
	// In Go, a model's settings are complete: start from the default.
	thinker, spec := def, def
	thinker.OutputTokens, thinker.ReasoningTokens, thinker.ITL = FixedCount(6), FixedCount(5), ITL{Base: 100 * time.Microsecond}
	spec.OutputTokens, spec.TokensPerEvent = FixedCount(20), TokensPerEvent{Min: 2, Max: 4}
	cfg := Config{Seed: 5, Default: def, Models: map[string]ModelConfig{"thinker": thinker, "spec": spec}, Log: log}
	srv, url := startServer(t, cfg)
	client := stream.NewClient()
	defer client.CloseIdleConnections()

	type want struct {
		text, reasoning string
		output, input   int
		reasoningTokens int
		finish          string
	}
	cases := []struct {
		name, path, body string
		header           http.Header
		want             want
	}{
		{"chat", "/v1/chat/completions", `{"model":"gpt-mock","messages":[{"role":"user","content":"three word prompt"}]}`, nil,
			want{FillerText(12), "", 12, 3, 0, "stop"}},
		{"chat max_tokens", "/v1/chat/completions", `{"model":"gpt-mock","max_tokens":4,"messages":[{"role":"user","content":"hi"}]}`, nil,
			want{FillerText(4), "", 4, 1, 0, "length"}},
		{"chat reasoning", "/v1/chat/completions", `{"model":"thinker","messages":[{"role":"user","content":"think hard"}]}`, nil,
			want{FillerText(6), FillerText(5), 11, 2, 5, "stop"}},
		{"chat continuous usage, several tokens per event", "/v1/chat/completions",
			`{"model":"spec","stream_options":{"include_usage":true,"continuous_usage_stats":true},"messages":[{"role":"user","content":"go"}]}`, nil,
			want{FillerText(20), "", 20, 1, 0, "stop"}},
		{"completions", "/v1/completions", `{"model":"instruct","prompt":"a b c d"}`, nil,
			want{FillerText(12), "", 12, 4, 0, "stop"}},
		{"messages", "/v1/messages", `{"model":"claude-mock","max_tokens":1024,"messages":[{"role":"user","content":"hello"}]}`,
			http.Header{"Anthropic-Version": {"2023-06-01"}}, want{FillerText(12), "", 12, 1, 0, "end_turn"}},
		{"messages thinking", "/v1/messages", `{"model":"thinker","max_tokens":8,"messages":[{"role":"user","content":"hello"}]}`,
			http.Header{"Anthropic-Version": {"2023-06-01"}}, want{FillerText(3), FillerText(5), 8, 1, 0, "max_tokens"}},
	}
	recs := make([]*stream.Record, len(cases))
	for i, tc := range cases {
		rec := client.Do(context.Background(), &stream.Request{
			URL: url + tc.path, Header: tc.header, Body: []byte(tc.body), KeepText: true, KeepTimeline: true,
		})
		recs[i] = rec
		w := tc.want
		if rec.Err != nil {
			t.Fatalf("%s: %v", tc.name, rec.Err)
		}
		if rec.Text != w.text || rec.Reasoning != w.reasoning {
			t.Errorf("%s: text %q reasoning %q; want %q, %q", tc.name, rec.Text, rec.Reasoning, w.text, w.reasoning)
		}
		if rec.TokenSource != stream.TokensFromUsage || rec.OutputTokens != w.output || rec.InputTokens != w.input {
			t.Errorf("%s: tokens %d out, %d in from %s; want %d, %d from usage", tc.name, rec.OutputTokens, rec.InputTokens, rec.TokenSource, w.output, w.input)
		}
		if w.reasoningTokens > 0 && rec.ReasoningTokens != w.reasoningTokens {
			t.Errorf("%s: %d reasoning tokens, want %d", tc.name, rec.ReasoningTokens, w.reasoningTokens)
		}
		if rec.FinishReason != w.finish || rec.HasReasoning != (w.reasoning != "") {
			t.Errorf("%s: finish %q, reasoning %v; want %q, %v", tc.name, rec.FinishReason, rec.HasReasoning, w.finish, w.reasoning != "")
		}
		if !rec.HasTTFT || !rec.HasTPOT || rec.TTFT < time.Millisecond {
			t.Errorf("%s: TTFT %v (%v), TPOT %v (%v); want TTFT ≥ the 1 ms prefill", tc.name, rec.TTFT, rec.HasTTFT, rec.TPOT, rec.HasTPOT)
		}
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	logs := log.records(t)
	for i, tc := range cases {
		checkAgainstGroundTruth(t, tc.name, recs[i], logs[uint64(i)])
	}
	// vLLM-style usage on every chunk lets the engine see several tokens per
	// event.
	specRec := recs[3]
	sum := 0
	for i, n := range specRec.ITLTokens {
		lo := 2
		if i == len(specRec.ITLTokens)-1 {
			lo = 1 // the last event carries what is left
		}
		if n < lo || n > 4 {
			t.Errorf("spec: event %d carried %d tokens, want %d to 4", i+1, n, lo)
		}
		sum += n
	}
	if specRec.ITLTokens == nil || sum+firstTextTokens(specRec) != 20 {
		t.Errorf("spec: ITLTokens %v", specRec.ITLTokens)
	}
}

func firstTextTokens(r *stream.Record) int {
	for _, e := range r.Timeline {
		if e.Text {
			return e.Tokens
		}
	}
	return 0
}

// checkAgainstGroundTruth matches the engine's timeline with the mock's log of
// the same request: the same events, each read after it was written, and the
// first text read after the mock wrote it.
func checkAgainstGroundTruth(t *testing.T, name string, rec *stream.Record, gt RequestLog) {
	t.Helper()
	var stamped []int64
	firstText := int64(0)
	for i, k := range gt.EventKinds {
		if k != "done" && k != "malformed" {
			stamped = append(stamped, gt.EventWriteNS[i])
		}
		if (k == "text" || k == "reasoning") && firstText == 0 {
			firstText = gt.EventWriteNS[i]
		}
	}
	var got []int64
	start := rec.Start.UnixNano()
	for _, e := range rec.Timeline {
		if e.ServerNS == 0 {
			continue
		}
		got = append(got, e.ServerNS)
		read := start + int64(e.At)
		// The same machine's wall clock: a read can only follow its write.
		// The upper bound is generous on purpose (shared, noisy CPUs).
		if lag := read - e.ServerNS; lag < -int64(time.Millisecond) || lag > int64(5*time.Second) {
			t.Errorf("%s: event written at %d read %v later", name, e.ServerNS, time.Duration(lag))
		}
	}
	if len(got) != len(stamped) {
		t.Fatalf("%s: the engine saw %d stamped events, the mock wrote %d", name, len(got), len(stamped))
	}
	for i := range got {
		if got[i] != stamped[i] {
			t.Errorf("%s: event %d stamp %d, the log says %d", name, i, got[i], stamped[i])
		}
	}
	if ttftRead := start + int64(rec.TTFT); ttftRead < firstText-int64(time.Millisecond) {
		t.Errorf("%s: the engine's first text (%d) precedes the mock's write of it (%d)", name, ttftRead, firstText)
	}
}

// engineKind is the error kind the engine must give each fault.
var engineKind = map[Fault]stream.ErrorKind{
	FaultHTTP429:      "http_429",
	FaultHTTP5xx:      stream.KindHTTP5xx,
	FaultDisconnect:   stream.KindResetMidstream,
	FaultMalformed:    stream.KindMalformed,
	FaultErrorEvent:   stream.KindStreamError,
	FaultNotStreamed:  stream.KindNotStreamed,
	FaultUnauthorized: "http_401",
	FaultQueueFull:    "http_429",
}

func TestEngineClassifiesEveryFault(t *testing.T) {
	t.Parallel()
	srv, url := startServer(t, fastFaultyConfig())
	client := stream.NewClient()
	defer client.CloseIdleConnections()
	var mu sync.Mutex
	kinds := map[stream.ErrorKind]int{}
	runConcurrently(faultRequests, func(i int) {
		ep := faultEndpoints[i%len(faultEndpoints)]
		rec := client.Do(context.Background(), &stream.Request{URL: url + ep.path, Body: []byte(ep.body)})
		k := stream.ErrorKind("")
		if rec.Err != nil {
			k = rec.Err.Kind
		} else if rec.OutputTokens != 8 {
			k = "wrong answer"
		}
		mu.Lock()
		kinds[k]++
		mu.Unlock()
	})
	st := srv.Stats()
	failed := 0
	for _, f := range drawnFaults {
		k := engineKind[f]
		if int64(kinds[k]) != st.Faults[f] {
			t.Errorf("fault %s: the mock injected %d, the engine saw %d %s", f, st.Faults[f], kinds[k], k)
		}
		checkBinomial(t, string(k), kinds[k], faultRequests, faultRate)
		failed += kinds[k]
	}
	if failed+kinds[""] != faultRequests {
		t.Errorf("kinds %v: unexpected kinds", kinds)
	}
	t.Logf("engine kinds: %v", kinds)

	// 401 and the queue limit.
	_, keyed := startServer(t, Config{APIKey: "sk-mock-key"})
	rec := client.Do(context.Background(), &stream.Request{URL: keyed + "/v1/chat/completions", Body: []byte(`{"model":"m","messages":[]}`),
		Header: http.Header{"Authorization": {"Bearer wrong"}}})
	if rec.Err == nil || rec.Err.Kind != engineKind[FaultUnauthorized] {
		t.Errorf("wrong key: %v", rec.Err)
	}
}
