package mockllm

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The shapes official SDKs depend on (issue 23): the Responses API's done
// events and terminal objects carry the whole output, its error event nests
// the error object and is followed by response.failed, usage reports what
// was sent on every path, and every API answers unknown paths in its own
// error shape. conformance/ runs the SDKs themselves against the mock.

// responsesStream streams one Responses request against a fresh mock.
func responsesStream(t *testing.T, mc ModelConfig, body string) []sseEvent {
	t.Helper()
	_, url := startServer(t, Config{Seed: 3, Default: mc})
	res := post(t, url+"/v1/responses", body)
	if res.readErr != nil || res.status != 200 {
		t.Fatalf("status %d, %v: %s", res.status, res.readErr, res.body)
	}
	return parseSSE(res.body)
}

// outputTexts returns the text of each output item of a response object:
// a message's output_text parts joined, a reasoning item's summary joined.
func outputTexts(t *testing.T, resp map[string]any) (message, summary string) {
	t.Helper()
	out, ok := resp["output"].([]any)
	if !ok {
		t.Fatalf("response has no output list: %v", resp)
	}
	for _, it := range out {
		m := it.(map[string]any)
		switch m["type"] {
		case "message":
			for _, p := range m["content"].([]any) {
				message += p.(map[string]any)["text"].(string)
			}
		case "reasoning":
			for _, p := range m["summary"].([]any) {
				summary += p.(map[string]any)["text"].(string)
			}
		}
	}
	return message, summary
}

func TestResponsesTerminalEventsCarryTheWholeOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		reasoning int
		max       string
		status    string
	}{
		{"text", 0, "", "completed"},
		{"reasoning", 4, "", "completed"},
		{"cut at max_output_tokens", 4, `"max_output_tokens":7,`, "incomplete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := ModelConfig{OutputTokens: FixedCount(6), ReasoningTokens: FixedCount(tc.reasoning)}
			evs := responsesStream(t, mc, `{"model":"m","stream":true,`+tc.max+`"input":"hello there"}`)
			var text, summary string
			seen := map[string]int{}
			var last map[string]any
			for _, ev := range evs {
				o := ev.obj(t)
				typ, _ := o["type"].(string)
				seen[typ]++
				switch typ {
				case "response.output_text.delta":
					text += o["delta"].(string)
				case "response.reasoning_summary_text.delta":
					summary += o["delta"].(string)
				case "response.output_text.done", "response.reasoning_summary_text.done":
					want := text
					if typ == "response.reasoning_summary_text.done" {
						want = summary
					}
					if o["text"] != want {
						t.Errorf("%s text %q, want the deltas' %q", typ, o["text"], want)
					}
				case "response.content_part.done", "response.reasoning_summary_part.done":
					want := text
					if typ == "response.reasoning_summary_part.done" {
						want = summary
					}
					if p, _ := o["part"].(map[string]any); p == nil || p["text"] != want {
						t.Errorf("%s part %v, want text %q", typ, o["part"], want)
					}
				case "response.output_item.done":
					m, s := outputTexts(t, map[string]any{"output": []any{o["item"]}})
					if m+s == "" {
						t.Errorf("output_item.done carries no text: %v", o["item"])
					}
				}
				last = o
			}
			for _, typ := range []string{"response.content_part.done", "response.output_text.done"} {
				if seen[typ] != 1 {
					t.Errorf("%d %s events, want 1", seen[typ], typ)
				}
			}
			if tc.reasoning > 0 && (seen["response.reasoning_summary_text.done"] != 1 || seen["response.reasoning_summary_part.done"] != 1) {
				t.Errorf("reasoning: %d summary_text.done, %d summary_part.done; want 1 each", seen["response.reasoning_summary_text.done"], seen["response.reasoning_summary_part.done"])
			}
			if last["type"] != "response."+tc.status {
				t.Fatalf("last event %v, want response.%s", last["type"], tc.status)
			}
			resp := last["response"].(map[string]any)
			m, s := outputTexts(t, resp)
			if m != text || s != summary || text == "" {
				t.Errorf("final output: message %q summary %q; the deltas were %q and %q", m, s, text, summary)
			}
			usage := resp["usage"].(map[string]any)
			want := float64(len(strings.Fields(text)) + len(strings.Fields(summary)))
			if usage["output_tokens"] != want {
				t.Errorf("usage output_tokens %v, want the %v sent", usage["output_tokens"], want)
			}
		})
	}
}

func TestResponsesErrorEventIsOpenAIsShapeThenResponseFailed(t *testing.T) {
	t.Parallel()
	mc := ModelConfig{OutputTokens: FixedCount(10), Faults: Faults{ErrorEvent: 1}}
	evs := responsesStream(t, mc, `{"model":"m","stream":true,"input":"hello there"}`)
	var text string
	var errEv, failed map[string]any
	for i, ev := range evs {
		o := ev.obj(t)
		switch o["type"] {
		case "response.output_text.delta":
			text += o["delta"].(string)
		case "error":
			errEv = o
			if i+2 != len(evs) {
				t.Errorf("error event is %d of %d; want response.failed right after it, last", i+1, len(evs))
			}
		case "response.failed":
			failed = o
		}
	}
	if errEv == nil || failed == nil {
		t.Fatalf("no error event (%v) or no response.failed (%v)", errEv != nil, failed != nil)
	}
	e, _ := errEv["error"].(map[string]any)
	if e == nil || e["code"] == nil || !strings.Contains(e["message"].(string), "injected") {
		t.Errorf("error event %v: want the error object nested under \"error\", as OpenAI sends it", errEv)
	}
	resp := failed["response"].(map[string]any)
	if resp["status"] != "failed" || resp["error"] == nil {
		t.Errorf("response.failed: status %v error %v", resp["status"], resp["error"])
	}
	if m, _ := outputTexts(t, resp); m != text {
		t.Errorf("response.failed output %q, want what was sent: %q", m, text)
	}
	if got, want := resp["usage"].(map[string]any)["output_tokens"], float64(len(strings.Fields(text))); got != want {
		t.Errorf("response.failed usage output_tokens %v, want the %v sent", got, want)
	}
}

func TestCohereErrorEventUsageIsWhatWasSent(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Seed: 4, Default: ModelConfig{OutputTokens: FixedCount(12), Faults: Faults{ErrorEvent: 1}}})
	res := post(t, url+"/v2/chat", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	sent := 0
	var end map[string]any
	for _, ev := range parseSSE(res.body) {
		o := ev.obj(t)
		switch ev.name {
		case "content-delta":
			txt := o["delta"].(map[string]any)["message"].(map[string]any)["content"].(map[string]any)["text"].(string)
			sent += len(strings.Fields(txt))
		case "message-end":
			end = o
		}
	}
	if end == nil || sent == 0 || sent >= 12 {
		t.Fatalf("want a message-end after 1..11 tokens; %d tokens, end %v", sent, end)
	}
	usage := end["delta"].(map[string]any)["usage"].(map[string]any)
	for _, k := range []string{"billed_units", "tokens"} {
		if got := usage[k].(map[string]any)["output_tokens"]; got != float64(sent) {
			t.Errorf("message-end usage.%s.output_tokens %v after %d tokens sent", k, got, sent)
		}
	}
}

func TestUnknownPathsAndMethodsAnswerInTheirAPIsShape(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{})
	// Each shape function checks one API's error body.
	ollamaShape := func(b []byte) bool {
		var v map[string]any
		if json.Unmarshal(b, &v) != nil {
			return false
		}
		msg, ok := v["error"].(string)
		return ok && msg != ""
	}
	cohereShape := func(b []byte) bool {
		var v map[string]any
		if json.Unmarshal(b, &v) != nil {
			return false
		}
		msg, ok := v["message"].(string)
		_, hasErr := v["error"]
		return ok && msg != "" && !hasErr
	}
	geminiShape := func(b []byte) bool {
		var v struct {
			Error struct {
				Code    int
				Message string
				Status  string
			}
		}
		return json.Unmarshal(b, &v) == nil && v.Error.Code >= 400 && v.Error.Status != "" && v.Error.Message != ""
	}
	openAIShape := func(b []byte) bool {
		var v struct{ Error map[string]any }
		return json.Unmarshal(b, &v) == nil && v.Error["message"] != nil && v.Error["type"] != nil
	}
	for _, tc := range []struct {
		method, path string
		status       int
		shape        func([]byte) bool
	}{
		{"POST", "/api/generate", 404, ollamaShape},
		{"GET", "/api/tags", 404, ollamaShape},
		{"GET", "/api/chat", 405, ollamaShape},
		{"POST", "/v2/classify", 404, cohereShape},
		{"POST", "/v2/embed", 400, cohereShape}, // served: {} has no texts
		{"GET", "/v2/chat", 405, cohereShape},
		{"POST", "/v1beta/models/m:countTokens", 400, geminiShape},
		{"GET", "/v1beta/models/m:generateContent", 405, geminiShape},
		{"GET", "/v1/responses", 405, openAIShape},
		{"POST", "/v1/moderations", 404, openAIShape},
		{"POST", "/v1/embeddings", 400, openAIShape}, // served: {} has no input
	} {
		req, _ := http.NewRequest(tc.method, url+tc.path, strings.NewReader(`{}`))
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !tc.shape(b) {
			t.Errorf("%s %s: %d %s; want %d in the API's own error shape", tc.method, tc.path, resp.StatusCode, b, tc.status)
		}
	}
}

func TestGeminiNotStreamedIsTheArrayGoogleSendsWithoutSSE(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Default: ModelConfig{OutputTokens: FixedCount(4), Faults: Faults{NotStreamed: 1}}})
	res := post(t, url+"/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	var chunks []map[string]any
	if err := json.Unmarshal(res.body, &chunks); err != nil || len(chunks) != 1 || !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
		t.Fatalf("want one GenerateContentResponse in a JSON array (application/json), as Google answers streamGenerateContent without alt=sse; got %s %q (%v)", res.header.Get("Content-Type"), res.body, err)
	}
	if chunks[0]["candidates"] == nil || chunks[0]["usageMetadata"] == nil {
		t.Errorf("the chunk lacks candidates or usageMetadata: %v", chunks[0])
	}
}
