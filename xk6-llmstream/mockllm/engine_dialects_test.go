package mockllm

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// The round trip of the newer dialects (Responses, Gemini, Cohere, ollama):
// the engine decodes each to what the mock planned, against its ground truth,
// streamed and not, and classifies every fault in each dialect's own shape.

// dialectEndpoint is a request of one newer dialect against the mock.
type dialectEndpoint struct {
	name, path, body string
	header           http.Header
}

// newDialectEndpoints asks for model (max tokens limit when > 0) in each
// newer dialect; the prompt is three words.
func newDialectEndpoints(model string, stream bool) []dialectEndpoint {
	s := "false"
	alt, method := "", ":generateContent"
	if stream {
		s, alt, method = "true", "?alt=sse", ":streamGenerateContent"
	}
	return []dialectEndpoint{
		{"responses", "/v1/responses", `{"model":"` + model + `","stream":` + s + `,"input":[{"role":"user","content":[{"type":"input_text","text":"three word prompt"}]}]}`, nil},
		{"gemini", "/v1beta/models/" + model + method + alt, `{"contents":[{"role":"user","parts":[{"text":"three word prompt"}]}]}`,
			http.Header{"X-Goog-Api-Key": {"sk-mock-key"}}},
		{"cohere", "/v2/chat", `{"model":"` + model + `","stream":` + s + `,"messages":[{"role":"user","content":"three word prompt"}]}`, nil},
		{"ollama", "/api/chat", `{"model":"` + model + `","stream":` + s + `,"messages":[{"role":"user","content":"three word prompt"}]}`, nil},
	}
}

func TestEngineDecodesTheNewerDialects(t *testing.T) {
	t.Parallel()
	log := &logBuffer{}
	def := ModelConfig{
		Prefill:      Prefill{Base: time.Millisecond},
		ITL:          ITL{Base: 200 * time.Microsecond, Jitter: Jitter{Dist: JitterLognormal, Sigma: 0.3}},
		OutputTokens: FixedCount(12),
	}
	thinker := def
	thinker.OutputTokens, thinker.ReasoningTokens = FixedCount(6), FixedCount(5)
	srv, url := startServer(t, Config{Seed: 5, APIKey: "sk-mock-key", Default: def, Models: map[string]ModelConfig{"thinker": thinker}, Log: log})
	client := stream.NewClient()
	defer client.CloseIdleConnections()
	finish := map[string]string{"responses": "completed", "gemini": "STOP", "cohere": "COMPLETE", "ollama": "stop"}
	auth := http.Header{"Authorization": {"Bearer sk-mock-key"}}

	var eps []dialectEndpoint
	for _, model := range []string{"m", "thinker"} {
		eps = append(eps, newDialectEndpoints(model, true)...)
	}
	recs := make([]*stream.Record, len(eps))
	for i, ep := range eps {
		h := ep.header
		if h == nil {
			h = auth
		}
		rec := client.Do(context.Background(), &stream.Request{URL: url + ep.path, Header: h, Body: []byte(ep.body), KeepText: true, KeepTimeline: true})
		recs[i] = rec
		reasoning, answer := 0, 12
		if i >= len(eps)/2 {
			reasoning, answer = 5, 6
		}
		if rec.Err != nil {
			t.Fatalf("%s: %v", ep.name, rec.Err)
		}
		if rec.Dialect != stream.Dialect(encoderDialect(ep.name)) {
			t.Errorf("%s: decoded as %s", ep.name, rec.Dialect)
		}
		if rec.Text != FillerText(answer) || rec.Reasoning != FillerText(reasoning) {
			t.Errorf("%s: text %q reasoning %q", ep.name, rec.Text, rec.Reasoning)
		}
		if rec.TokenSource != stream.TokensFromUsage || rec.OutputTokens != reasoning+answer || rec.InputTokens != 3 {
			t.Errorf("%s: tokens %d out, %d in from %s; want %d, 3 from usage", ep.name, rec.OutputTokens, rec.InputTokens, rec.TokenSource, reasoning+answer)
		}
		if rec.FinishReason != finish[ep.name] || rec.HasReasoning != (reasoning > 0) || !rec.HasTTFT || !rec.HasTPOT {
			t.Errorf("%s: finish %q, reasoning %v, TTFT %v, TPOT %v", ep.name, rec.FinishReason, rec.HasReasoning, rec.HasTTFT, rec.HasTPOT)
		}
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	logs := log.records(t)
	for i, ep := range eps {
		gt := logs[uint64(i)]
		checkAgainstGroundTruth(t, ep.name, recs[i], gt)
		if ep.name == "ollama" {
			checkOllamaTimings(t, recs[i], gt)
		}
	}
}

// encoderDialect is the dialect of a newDialectEndpoints name.
func encoderDialect(name string) dialect {
	return map[string]dialect{"responses": openAIResponses, "gemini": gemini, "cohere": cohere, "ollama": ollama}[name]
}

// checkOllamaTimings: ollama's durations are the mock's plan: the prefill,
// and first token due → last token due.
func checkOllamaTimings(t *testing.T, rec *stream.Record, gt RequestLog) {
	t.Helper()
	st := rec.ServerTimings
	if st == nil {
		t.Fatal("ollama: no server timings")
	}
	var first, last int64 = -1, 0
	for i, k := range gt.EventKinds {
		if k == "text" || k == "reasoning" {
			if first < 0 {
				first = gt.EventDueNS[i]
			}
			last = gt.EventDueNS[i]
		}
	}
	if int64(st.Prefill) != gt.PrefillNS || int64(st.Decode) != last-first || st.OutputTokens != gt.OutputTokens || st.PromptTokens != gt.InputTokens {
		t.Errorf("ollama: server timings %+v; the plan: prefill %d, decode %d, %d tokens out, %d in", st, gt.PrefillNS, last-first, gt.OutputTokens, gt.InputTokens)
	}
}

func TestEngineReadsTheNewerDialectsWhole(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Default: ModelConfig{OutputTokens: FixedCount(5)}})
	client := stream.NewClient()
	defer client.CloseIdleConnections()
	eps := newDialectEndpoints("m", false)
	// Gemini's streamGenerateContent without alt=sse: a JSON array.
	eps = append(eps, dialectEndpoint{"gemini array", "/v1beta/models/m:streamGenerateContent", eps[1].body, nil})
	for _, ep := range eps {
		r := post(t, url+ep.path, ep.body)
		body := r.body
		if r.status != 200 || r.header.Get("Content-Type") != "application/json" || len(body) < 2 {
			t.Fatalf("%s: %d %s: %s", ep.name, r.status, r.header.Get("Content-Type"), body)
		}
		if ep.name == "gemini array" && (body[0] != '[' || body[len(body)-2] != ']') {
			t.Errorf("gemini without alt=sse: %s, want a JSON array", body)
		}
		if !json.Valid(body) || !bytes.Contains(body, []byte(`"`+GroundTruthField+`":`)) {
			t.Errorf("%s: %s is not stamped JSON", ep.name, body)
		}
		// The engine sets "stream": true in a body; Gemini streams by its URL
		// alone, so a Gemini URL that does not stream reads as not_streamed.
		rec := client.Do(context.Background(), &stream.Request{URL: url + ep.path, Body: []byte(ep.body)})
		switch gemini := strings.HasPrefix(ep.name, "gemini"); {
		case gemini && (rec.Err == nil || rec.Err.Kind != stream.KindNotStreamed):
			t.Errorf("%s: %v, want not_streamed", ep.name, rec.Err)
		case !gemini && (rec.Err != nil || rec.OutputTokens != 5):
			t.Errorf("%s: %v, %d tokens; want the stream the engine asked for", ep.name, rec.Err, rec.OutputTokens)
		}
	}
}

func TestEngineClassifiesEveryFaultOfTheNewerDialects(t *testing.T) {
	t.Parallel()
	for _, ep := range newDialectEndpoints("m", true) {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			srv, url := startServer(t, fastFaultyConfig())
			client := stream.NewClient()
			defer client.CloseIdleConnections()
			var mu sync.Mutex
			kinds := map[stream.ErrorKind]int{}
			const n = faultRequests / 2
			runConcurrently(n, func(int) {
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
				if int64(kinds[k]) != st.Faults[f] || st.Faults[f] == 0 {
					t.Errorf("fault %s: the mock injected %d, the engine saw %d %s", f, st.Faults[f], kinds[k], k)
				}
				failed += kinds[k]
			}
			if failed+kinds[""] != n {
				t.Errorf("kinds %v: unexpected kinds", kinds)
			}
			// A wrong key, in the dialect's own error shape.
			_, keyed := startServer(t, Config{APIKey: "sk-mock-key"})
			rec := client.Do(context.Background(), &stream.Request{URL: keyed + ep.path, Body: []byte(ep.body),
				Header: http.Header{"Authorization": {"Bearer wrong"}}})
			if rec.Err == nil || rec.Err.Kind != engineKind[FaultUnauthorized] {
				t.Errorf("wrong key: %v", rec.Err)
			}
		})
	}
}
