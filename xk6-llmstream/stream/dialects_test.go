package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/redact"
)

// Which events of the newer dialects count as generated text.
func TestTextBearingNewDialects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		d         Dialect
		typ, data string
		answer    string
		reasoning string
		tool      bool
	}{
		{"responses text", OpenAIResponses, "", `{"type":"response.output_text.delta","delta":"hi"}`, "hi", "", false},
		{"responses type from the event name", OpenAIResponses, "response.output_text.delta", `{"delta":"hi"}`, "hi", "", false},
		{"responses summary", OpenAIResponses, "", `{"type":"response.reasoning_summary_text.delta","delta":"hm"}`, "", "hm", false},
		{"responses reasoning text", OpenAIResponses, "", `{"type":"response.reasoning_text.delta","delta":"hm"}`, "", "hm", false},
		{"responses refusal", OpenAIResponses, "", `{"type":"response.refusal.delta","delta":"no"}`, "no", "", false},
		{"responses text done repeats", OpenAIResponses, "", `{"type":"response.output_text.done","text":"hi"}`, "", "", false},
		{"responses args", OpenAIResponses, "", `{"type":"response.function_call_arguments.delta","output_index":1,"item_id":"fc","delta":"{"}`, "", "", true},
		{"responses args done alone", OpenAIResponses, "", `{"type":"response.function_call_arguments.done","output_index":1,"item_id":"fc","arguments":"{}"}`, "", "", true},
		{"responses message item", OpenAIResponses, "", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"m","content":[]}}`, "", "", false},
		{"responses empty created", OpenAIResponses, "", `{"type":"response.created","response":{"model":"m"}}`, "", "", false},
		{"gemini text", Gemini, "", `{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]}}]}`, "ab", "", false},
		{"gemini thought", Gemini, "", `{"candidates":[{"content":{"parts":[{"text":"t","thought":true}]}}]}`, "", "t", false},
		{"gemini empty text", Gemini, "", `{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}`, "", "", false},
		{"gemini signature only", Gemini, "", `{"candidates":[{"content":{"parts":[{"thoughtSignature":"abc"}]}}]}`, "", "", false},
		{"gemini function call", Gemini, "", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}]}}]}`, "", "", true},
		{"gemini usage only", Gemini, "", `{"usageMetadata":{"promptTokenCount":3}}`, "", "", false},
		{"cohere text", Cohere, "", `{"type":"content-delta","delta":{"message":{"content":{"text":"x"}}}}`, "x", "", false},
		{"cohere thinking", Cohere, "", `{"type":"content-delta","delta":{"message":{"content":{"thinking":"t"}}}}`, "", "t", false},
		{"cohere type from the event name", Cohere, "content-delta", `{"delta":{"message":{"content":{"text":"x"}}}}`, "x", "", false},
		{"cohere empty start", Cohere, "", `{"type":"content-start","delta":{"message":{"content":{"type":"text","text":""}}}}`, "", "", false},
		{"cohere tool plan", Cohere, "", `{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"p"}}}`, "", "p", false},
		{"cohere tool args", Cohere, "", `{"type":"tool-call-delta","delta":{"message":{"tool_calls":{"function":{"arguments":"{"}}}}}`, "", "", true},
		{"cohere tool end", Cohere, "", `{"type":"tool-call-end","index":0}`, "", "", false},
		{"ollama chat", Ollama, "", `{"model":"m","message":{"role":"assistant","content":"x"},"done":false}`, "x", "", false},
		{"ollama thinking", Ollama, "", `{"model":"m","message":{"role":"assistant","content":"","thinking":"t"},"done":false}`, "", "t", false},
		{"ollama generate", Ollama, "", `{"model":"m","response":"x","done":false}`, "x", "", false},
		{"ollama done", Ollama, "", `{"model":"m","message":{"role":"assistant","content":""},"done":true,"eval_count":3}`, "", "", false},
		{"mistral thinking part", OpenAIChat, "", `{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"t"}]}]}}]}`, "", "t", false},
		{"thinking and text parts", OpenAIChat, "", `{"choices":[{"delta":{"content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"}]}}]}`, "a", "t", false},
		{"reasoning counted once", OpenAIChat, "", `{"choices":[{"delta":{"reasoning":"r","reasoning_details":[{"type":"reasoning.text","text":"r"}]}}]}`, "", "r", false},
		{"reasoning_content and reasoning once", OpenAIChat, "", `{"choices":[{"delta":{"reasoning_content":"r","reasoning":"r"}}]}`, "", "r", false},
		{"reasoning_details alone", OpenAIChat, "", `{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.summary","summary":"s"},{"type":"reasoning.encrypted","data":"x"}]}}]}`, "", "s", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := decodeOne(t, tt.d, tt.typ, tt.data)
			if string(d.answer) != tt.answer || string(d.reasoning) != tt.reasoning || d.toolText != tt.tool {
				t.Errorf("got answer %q reasoning %q tool %v; want %q %q %v", d.answer, d.reasoning, d.toolText, tt.answer, tt.reasoning, tt.tool)
			}
		})
	}
}

func TestDialectFromPathNewDialects(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]Dialect{
		"/v1/responses":         OpenAIResponses,
		"/openai/v1/responses/": OpenAIResponses,
		"/v1beta/models/gemini-2.5-pro:streamGenerateContent":                                                  Gemini,
		"/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent": Gemini,
		"/v2/chat":                           Cohere,
		"/compatibility/v1/chat/completions": OpenAIChat,
		"/v1/chat":                           "",
		"/api/chat":                          Ollama,
		"/api/generate":                      Ollama,
	} {
		if got := DialectFromPath(path); got != want {
			t.Errorf("DialectFromPath(%q) = %q, want %q", path, got, want)
		}
	}
	for _, d := range Dialects() {
		if got, ok := ParseDialect(string(d)); !ok || got != d {
			t.Errorf("ParseDialect(%q) = %q, %v", d, got, ok)
		}
	}
	if _, ok := ParseDialect("gemini-native"); ok {
		t.Error("ParseDialect accepted an unknown name")
	}
}

// Auto detection from the first event alone, whatever comes after it.
func TestDetectDialect(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ, data string
		want      Dialect
	}{
		{"", `{"type":"response.created","response":{}}`, OpenAIResponses},
		{"response.created", `{"response":{}}`, OpenAIResponses},
		{"", `{"candidates":[]}`, Gemini},
		{"", `{"usageMetadata":{}}`, Gemini},
		{"", `{"type":"message-start","id":"x"}`, Cohere},
		{"content-delta", `{"delta":{}}`, Cohere},
		{"", `{"model":"m","message":{},"done":false}`, Ollama},
		{"", `{"type":"message_start","message":{}}`, AnthropicMessages},
		{"", `{"choices":[],"candidates":[]}`, ""},
		{"", `{"error":{"message":"x"}}`, ""},
	} {
		if got := detectDialect(&Event{Type: []byte(tt.typ), Data: []byte(tt.data)}); got != tt.want {
			t.Errorf("detectDialect(%q, %s) = %q, want %q", tt.typ, tt.data, got, tt.want)
		}
	}
}

// NDJSON is told from SSE by the first byte that is not white space or a
// BOM, however the bytes arrive, and the sniffed bytes are not lost.
func TestSniffNDJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body string
		want bool
	}{
		{`{"done":true}` + "\n", true},
		{"\xEF\xBB\xBF\r\n  {\"done\":true}\n", true},
		{"data: {}\n\n", false},
		{"\n\n: comment\n", false},
		{"\xEF\xBB\xBFdata: x\n\n", false},
		{"", false},
		{"   \n", false},
	} {
		for _, size := range []int{1, 2, 4096} {
			r, got := sniffNDJSON(&chunkReader{data: []byte(tt.body), sizes: []int{size}})
			var all bytes.Buffer
			if _, err := all.ReadFrom(r); err != nil {
				t.Fatal(err)
			}
			if got != tt.want || all.String() != tt.body {
				t.Errorf("sniff %q in %d-byte reads: %v and %q, want %v and the body", tt.body, size, got, all.String(), tt.want)
			}
		}
	}
}

func TestNDJSONReader(t *testing.T) {
	t.Parallel()
	body := "{\"a\":1}\r\n\n   \n{\"b\":2}\n{\"c\""
	rd := NewNDJSONReader(strings.NewReader(body), 0)
	var got []string
	for {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		got = append(got, string(ev.Data))
	}
	if strings.Join(got, "|") != `{"a":1}|{"b":2}` || !rd.Pending() {
		t.Errorf("events %q, pending %v", got, rd.Pending())
	}
}

func TestServerTimingsTPOT(t *testing.T) {
	t.Parallel()
	s := &ServerTimings{Decode: 147 * time.Millisecond, OutputTokens: 7}
	if d, ok := s.TPOT(); !ok || d != 21*time.Millisecond {
		t.Errorf("TPOT = %v, %v", d, ok)
	}
	var none *ServerTimings
	if _, ok := none.TPOT(); ok {
		t.Error("nil timings have a TPOT")
	}
	if _, ok := (&ServerTimings{Decode: time.Second}).TPOT(); ok {
		t.Error("TPOT without output tokens")
	}
}

// A Gemini request goes without "stream" (Google rejects unknown fields),
// and a key sent as x-goog-api-key or ?key= never shows in the Record, even
// when the server echoes it.
func TestDoGeminiBodyAndKeys(t *testing.T) {
	t.Parallel()
	const headerKey, queryKey = "AIzaSyHEADER-0123456789abcdefghijklmnop", "AIzaSyQUERY-0123456789abcdefghijklmnopq"
	bodies := make(chan map[string]any, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		bodies <- m
		sseHeaders(w)
		msg := "API key " + r.Header.Get("x-goog-api-key") + r.URL.Query().Get("key") + " not valid"
		e, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}})
		writeFlush(w, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}}]}\r\n\r\ndata: "+string(e)+"\r\n\r\n")
	}))
	defer srv.Close()
	c := NewClient()
	defer c.CloseIdleConnections()
	path := "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
	for _, req := range []*Request{
		{URL: srv.URL + path, Header: http.Header{"X-Goog-Api-Key": {headerKey}}},
		{URL: srv.URL + path + "&key=" + queryKey},
	} {
		req.Body = []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
		rec := c.Do(context.Background(), req)
		body := <-bodies
		if _, ok := body["stream"]; ok {
			t.Errorf("sent %v: Gemini rejects a \"stream\" field", body)
		}
		if rec.Dialect != Gemini || rec.Err == nil || rec.Err.Kind != KindStreamError || rec.TextEvents != 1 {
			t.Fatalf("got %+v", rec)
		}
		if s := rec.Err.Message; strings.Contains(s, "AIza") || !strings.Contains(s, redact.Marker) {
			t.Errorf("message %q shows the key", s)
		}
	}
}

// ollama's native stream through Client.Do: NDJSON, the dialect from the
// path or from the content type, server timings recorded.
func TestDoOllamaNDJSON(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/sse/ollama_native_chat_thinking_handmade.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			writeFlush(w, string(line))
		}
	}))
	defer srv.Close()
	c := NewClient()
	defer c.CloseIdleConnections()
	for _, path := range []string{"/api/chat", "/somewhere"} {
		rec := c.Do(context.Background(), &Request{URL: srv.URL + path, Body: []byte(`{"model":"qwen3:0.6b","messages":[]}`), KeepText: true})
		if rec.Err != nil || rec.Dialect != Ollama || rec.Text != "Hello! How can I help?" || rec.TextEvents != 7 {
			t.Fatalf("%s: %+v", path, rec)
		}
		st := rec.ServerTimings
		if st == nil || st.Prefill != 61234567 || st.Decode != 147*time.Millisecond || st.Total != 412345678 || st.Load != 20123456 || st.PromptTokens != 14 || st.OutputTokens != 7 {
			t.Errorf("%s: server timings %+v", path, st)
		}
		if rec.OutputTokens != 7 || rec.InputTokens != 14 || rec.FinishReason != "stop" || !rec.HasTPOT {
			t.Errorf("%s: tokens %d/%d finish %q TPOT %v", path, rec.OutputTokens, rec.InputTokens, rec.FinishReason, rec.HasTPOT)
		}
	}
}

// Decode with an explicit dialect reads the new dialects' recordings the
// same as auto does.
func TestDecodeExplicitNewDialects(t *testing.T) {
	t.Parallel()
	for file, d := range map[string]Dialect{
		"oai-resp-o3mini-reasoning-summary.sse":       OpenAIResponses,
		"gemini-25pro-thinking.sse":                   Gemini,
		"cohere-v2-chat-reasoning.sse":                Cohere,
		"ollama_native_chat_thinking_handmade.ndjson": Ollama,
		"mistral-chat-magistral-thinking.sse":         OpenAIChat,
	} {
		data, err := os.ReadFile("../../testdata/sse/" + file)
		if err != nil {
			t.Fatal(err)
		}
		auto, _ := Decode(bytes.NewReader(data), DialectAuto)
		rec, err := Decode(bytes.NewReader(data), d)
		if err != nil || !sameDecode(auto, rec) {
			t.Errorf("%s as %s differs from auto:\n%+v\n%+v", file, d, rec, auto)
		}
	}
}

func FuzzResponses(f *testing.F) {
	fuzzDecoder(f, OpenAIResponses,
		"data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"a\",\"delta\":\"{\"}\n\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"a\",\"name\":\"f\",\"arguments\":{}}}\n\n",
		"event: response.completed\ndata: {\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"usage\":{\"output_tokens\":1.5}}}\n\n",
		"data: {\"type\":\"error\",\"code\":\"x\",\"message\":\"y\"}\n\n")
}

func FuzzGemini(f *testing.F) {
	fuzzDecoder(f, Gemini,
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{}],\"willContinue\":true}},{\"text\":\"a\",\"thought\":1}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"candidatesTokenCount\":-3}}\r\n\r\n",
		"data: {\"error\":{\"code\":\"x\"}}\n\n",
		"data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\n\n")
}

func FuzzCohere(f *testing.F) {
	fuzzDecoder(f, Cohere,
		"event: tool-call-start\ndata: {\"delta\":{\"message\":{\"tool_calls\":[{\"function\":{\"name\":\"f\"}},3]}}}\n\n",
		"data: {\"type\":\"message-end\",\"delta\":{\"finish_reason\":\"ERROR\",\"usage\":{\"billed_units\":{\"output_tokens\":2}}}}\n\n")
}

func FuzzOllama(f *testing.F) {
	fuzzDecoder(f, Ollama,
		"{\"message\":{\"content\":\"a\",\"tool_calls\":[1,{\"function\":{\"arguments\":\"x\"}}]},\"done\":false}\n{\"done\":true,\"eval_duration\":1e300,\"eval_count\":2}\n",
		"\xEF\xBB\xBF{\"response\":\"a\",\"done\":true,\"done_reason\":\"stop\"}\r\n",
		"{\"error\":{\"message\":\"boom\"}}\n")
}
