package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The environment that points the tests at a running ollama (see doc.go).
const (
	envURL       = "LLMSTREAM_OLLAMA_URL"
	envModel     = "LLMSTREAM_OLLAMA_MODEL"
	envMaxTokens = "LLMSTREAM_OLLAMA_MAX_TOKENS"
	envStreams   = "LLMSTREAM_OLLAMA_STREAMS"
)

// Defaults of the optional variables.
const (
	defaultModel     = "tiny-random"
	defaultMaxTokens = 32
	defaultStreams   = 8
)

// requestTimeout bounds one streamed request. A 32-token answer of the tiny
// model takes well under a second on an idle machine, and tens of seconds
// behind 16 queued streams on a very busy one; the bound only stops a hung test.
const requestTimeout = 2 * time.Minute

// testTimeout bounds a whole test.
const testTimeout = 6 * time.Minute

// prompt is the user message of every request (the one of the curl checks in
// scripts/e2e-ollama.sh and of testdata/sse/ollama_v0.6.5_tiny_random_usage.sse).
const prompt = "Tell me a story about a lighthouse."

// target is the ollama under test.
type target struct {
	base      string // base URL without a trailing slash and without /v1
	model     string
	maxTokens int
	streams   int
}

// chatURL is the OpenAI-compatible streaming endpoint.
func (tg target) chatURL() string { return tg.base + "/v1/chat/completions" }

// ollama returns the target from the environment, or skips the test when
// LLMSTREAM_OLLAMA_URL is unset. A variable that is set but unusable fails the
// test with its name.
func ollama(t *testing.T) target {
	t.Helper()
	raw := strings.TrimSpace(os.Getenv(envURL))
	if raw == "" {
		t.Skipf("%s is not set: these tests need a running ollama; scripts/e2e-ollama.sh builds and starts one and runs them "+
			"(or set %s=http://127.0.0.1:PORT and %s to a model it serves)", envURL, envURL, envModel)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		t.Fatalf("%s=%q: want an absolute http(s) URL without a query, e.g. http://127.0.0.1:11434", envURL, raw)
	}
	base := strings.TrimSuffix(strings.TrimRight(raw, "/"), "/v1")
	tg := target{base: base, model: defaultModel, maxTokens: defaultMaxTokens, streams: defaultStreams}
	if m := strings.TrimSpace(os.Getenv(envModel)); m != "" {
		tg.model = m
	}
	tg.maxTokens = intEnv(t, envMaxTokens, defaultMaxTokens, 2)
	tg.streams = intEnv(t, envStreams, defaultStreams, 1)
	return tg
}

// intEnv reads a whole number of at least least from the environment (def when unset).
func intEnv(t *testing.T, name string, def, least int) int {
	t.Helper()
	s := strings.TrimSpace(os.Getenv(name))
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		t.Fatalf("%s=%q: want a whole number ≥ %d", name, s, least)
	}
	return n
}

// chatBody is the request object of every test: greedy decoding (temperature
// 0, a fixed seed), so that two sequential requests produce the same answer
// and the product's decoding can be compared with an independent one.
func (tg target) chatBody() map[string]any {
	return map[string]any{
		"model":       tg.model,
		"messages":    []any{map[string]any{"role": "user", "content": prompt}},
		"max_tokens":  tg.maxTokens,
		"temperature": 0,
		"seed":        42,
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return b
}

// rawAnswer is an answer decoded without any of the product's code: net/http,
// a line reader and encoding/json.
type rawAnswer struct {
	events       int    // SSE events with a data field, [DONE] included
	textEvents   int    // chunks whose delta.content is not empty
	text         string // the delta.content strings joined
	done         bool   // the stream ended with data: [DONE]
	finish       string // the last non-empty finish_reason
	usageChunks  int
	promptTokens int
	outputTokens int
	model        string
}

// fetchRaw streams the same request as the product sends (stream: true,
// stream_options.include_usage) and decodes it independently.
func fetchRaw(ctx context.Context, t *testing.T, tg target) rawAnswer {
	t.Helper()
	body := tg.chatBody()
	body["stream"] = true
	body["stream_options"] = map[string]any{"include_usage": true}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tg.chatURL(), bytes.NewReader(mustJSON(t, body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("raw request to %s: %v", tg.chatURL(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("raw request to %s: status %d, Content-Type %q", tg.chatURL(), resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var (
		a    rawAnswer
		data []string
		text strings.Builder
		line int
	)
	dispatch := func() {
		if data == nil {
			return
		}
		payload := strings.Join(data, "\n")
		data = nil
		a.events++
		if payload == "[DONE]" {
			a.done = true
			return
		}
		var chunk struct {
			Model   string `json:"model"`
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(payload), &chunk); err != nil {
			t.Fatalf("raw stream line %d: %v: %s", line, err, payload)
		}
		if a.model == "" {
			a.model = chunk.Model
		}
		for _, c := range chunk.Choices {
			if c.Delta.Content != "" {
				a.textEvents++
				text.WriteString(c.Delta.Content)
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				a.finish = *c.FinishReason
			}
		}
		if chunk.Usage != nil {
			a.usageChunks++
			a.promptTokens, a.outputTokens = chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens
		}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line++
		l := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case l == "":
			dispatch()
		case strings.HasPrefix(l, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(l, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("raw stream from %s: %v after %d lines", tg.chatURL(), err, line)
	}
	dispatch()
	a.text = text.String()
	if !a.done || a.usageChunks != 1 || a.outputTokens != tg.maxTokens {
		t.Fatalf("raw stream: [DONE] %v, %d usage chunks, completion_tokens %d (want true, 1, %d)",
			a.done, a.usageChunks, a.outputTokens, tg.maxTokens)
	}
	return a
}

// timings are the durations every path reports (engine record, helper answer,
// module result), in time.Duration.
type timings struct {
	headers, firstEvent time.Duration // zero when the path does not report them
	ttft, e2e, tpot     time.Duration
	hasTTFT, hasTPOT    bool
	itl                 []time.Duration
}

// outcome is what every path reports about one request, apart from timings.
type outcome struct {
	failure      string // "" when the request succeeded, else kind: message
	status       int
	api, model   string
	tokenSource  string
	outputTokens int
	inputTokens  int
	textEvents   int // -1 when the path does not report it
	finish       string
}

// checkAnswer asserts what must hold for every request to ollama, whichever
// path measured it. slack is the rounding of the path's numbers (0 for the
// engine's Durations, a microsecond for the helper's and module's milliseconds).
func checkAnswer(t *testing.T, tg target, o outcome, tm timings, slack time.Duration) {
	t.Helper()
	if o.failure != "" {
		t.Fatalf("request failed: %s (status %d)", o.failure, o.status)
	}
	if o.status != http.StatusOK || o.api != "openai-chat" || o.model != tg.model {
		t.Errorf("status %d api %q model %q, want 200 openai-chat %q", o.status, o.api, o.model, tg.model)
	}
	if o.tokenSource != "usage" || o.outputTokens != tg.maxTokens {
		t.Errorf("output tokens %d from %q, want max_tokens %d from usage", o.outputTokens, o.tokenSource, tg.maxTokens)
	}
	if o.inputTokens <= 0 {
		t.Errorf("input tokens %d, want > 0 (from usage)", o.inputTokens)
	}
	if o.finish != "length" {
		t.Errorf("finish reason %q, want length (the tiny model has always stopped at max_tokens)", o.finish)
	}

	// TTFT: positive, after the response headers and the first event, before the end.
	if !tm.hasTTFT || tm.ttft <= 0 {
		t.Fatalf("TTFT %v (has %v), want > 0", tm.ttft, tm.hasTTFT)
	}
	if tm.headers > 0 && tm.ttft+slack < tm.headers {
		t.Errorf("TTFT %v before the response headers (%v)", tm.ttft, tm.headers)
	}
	if tm.firstEvent > 0 && tm.ttft+slack < tm.firstEvent {
		t.Errorf("TTFT %v before the first event (%v)", tm.ttft, tm.firstEvent)
	}
	if tm.e2e+slack < tm.ttft || tm.e2e > requestTimeout {
		t.Errorf("E2E %v, want between TTFT %v and the request timeout %v", tm.e2e, tm.ttft, requestTimeout)
	}

	// ITL: one gap per pair of consecutive text events; none negative; their sum
	// is the span of the text events, which ends before the stream does.
	if len(tm.itl) < tg.maxTokens-2 {
		t.Errorf("%d ITL gaps, want ≥ max_tokens−2 = %d", len(tm.itl), tg.maxTokens-2)
	}
	if o.textEvents >= 0 && len(tm.itl) != o.textEvents-1 {
		t.Errorf("%d ITL gaps for %d text events, want text events − 1", len(tm.itl), o.textEvents)
	}
	var sum time.Duration
	for i, g := range tm.itl {
		if g < 0 {
			t.Errorf("ITL gap %d is %v, want ≥ 0", i, g)
		}
		sum += g
	}
	if span := tm.e2e - tm.ttft; sum > span+time.Duration(len(tm.itl))*slack {
		t.Errorf("the ITL gaps add up to %v, more than E2E − TTFT = %v", sum, span)
	}

	// TPOT: vLLM's definition, (E2E − TTFT) / (output tokens − 1).
	if !tm.hasTPOT {
		t.Fatalf("no TPOT for a successful request of %d tokens", o.outputTokens)
	}
	want := (tm.e2e - tm.ttft) / time.Duration(o.outputTokens-1)
	if d := tm.tpot - want; d < -2*slack-time.Nanosecond || d > 2*slack+time.Nanosecond {
		t.Errorf("TPOT %v, want (E2E %v − TTFT %v) / %d = %v", tm.tpot, tm.e2e, tm.ttft, o.outputTokens-1, want)
	}
}

// ms converts a helper/module millisecond figure to a Duration (rounded to the
// nanosecond).
func ms(v float64) time.Duration { return time.Duration(v*1e6 + 0.5) }

func msList(vs []float64) []time.Duration {
	out := make([]time.Duration, len(vs))
	for i, v := range vs {
		out[i] = ms(v)
	}
	return out
}

// concurrently runs f(i) for i in [0, n) at once and waits for all of them.
// f must not call t.Fatal (it runs outside the test goroutine): it stores its
// result for the caller to check.
func concurrently(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

// describe names a request in subtest names.
func describe(kind string, i int) string { return fmt.Sprintf("%s-%02d", kind, i) }
