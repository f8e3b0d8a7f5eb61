package mockllm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// toolRequest is one dialect's request offering tools, with results tool
// results in its own conversation shape.
func toolRequest(api string, results int) (path, body string) {
	const schema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"unit":{"type":"string","enum":["C","F"]},"hot":{"type":"boolean"}}}`
	openAITools := `[{"type":"function","function":{"name":"get_weather","parameters":` + schema + `}}]`
	var turns []string
	switch api {
	case "openai-chat", "cohere", "ollama":
		for range results {
			turns = append(turns, `{"role":"assistant","content":"","tool_calls":[]}`, `{"role":"tool","tool_call_id":"c","content":"sunny"}`)
		}
		msgs := strings.Join(append([]string{`{"role":"user","content":"weather?"}`}, turns...), ",")
		path = map[string]string{"openai-chat": "/v1/chat/completions", "cohere": "/v2/chat", "ollama": "/api/chat"}[api]
		return path, `{"model":"m","stream":true,"messages":[` + msgs + `],"tools":` + openAITools + `}`
	case "anthropic-messages":
		for range results {
			turns = append(turns, `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"get_weather","input":{}}]}`,
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"sunny"}]}`)
		}
		msgs := strings.Join(append([]string{`{"role":"user","content":"weather?"}`}, turns...), ",")
		return "/v1/messages", `{"model":"m","stream":true,"max_tokens":3,"messages":[` + msgs + `],"tools":[{"name":"get_weather","input_schema":` + schema + `}]}`
	case "openai-responses":
		for range results {
			turns = append(turns, `{"type":"function_call","call_id":"c","name":"get_weather","arguments":"{}"}`, `{"type":"function_call_output","call_id":"c","output":"sunny"}`)
		}
		in := strings.Join(append([]string{`{"role":"user","content":"weather?"}`}, turns...), ",")
		return "/v1/responses", `{"model":"m","stream":true,"input":[` + in + `],"tools":[{"type":"function","name":"get_weather","parameters":` + schema + `}]}`
	}
	for range results { // gemini
		turns = append(turns, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{}}}]}`,
			`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"result":"sunny"}}}]}`)
	}
	contents := strings.Join(append([]string{`{"role":"user","parts":[{"text":"weather?"}]}`}, turns...), ",")
	field := "parameters" // gemini-json: the JSON schema field, parametersJsonSchema
	if api == "gemini-json" {
		field = "parametersJsonSchema"
	}
	return "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[` + contents + `],"tools":[{"functionDeclarations":[{"name":"get_weather","` + field + `":` + schema + `}]}]}`
}

// TestToolCallAnswers: offered tools and fewer tool results than ToolRounds,
// the mock calls the tool in each dialect's streaming shape (the engine reads
// back the call the log says was sent, arguments in several pieces where the
// API streams them, one type-correct member per schema property, max_tokens
// not cutting it); with ToolRounds results, it answers with text.
func TestToolCallAnswers(t *testing.T) {
	t.Parallel()
	log := &logBuffer{}
	def := ModelConfig{Prefill: Prefill{Base: time.Millisecond}, ITL: ITL{Base: 100 * time.Microsecond}, OutputTokens: FixedCount(4), ToolRounds: 2}
	srv, url := startServer(t, Config{Seed: 3, Default: def, Log: log})
	client := stream.NewClient()
	defer client.CloseIdleConnections()
	finish := map[string]string{"openai-chat": "tool_calls", "anthropic-messages": "tool_use", "openai-responses": "completed",
		"gemini": "STOP", "gemini-json": "STOP", "cohere": "TOOL_CALL", "ollama": "stop"}
	apis := []string{"openai-chat", "anthropic-messages", "openai-responses", "gemini", "gemini-json", "cohere", "ollama"}
	var recs []*stream.Record
	for _, api := range apis {
		for results := range 3 {
			path, body := toolRequest(api, results)
			rec := client.Do(context.Background(), &stream.Request{URL: url + path, Body: []byte(body), KeepText: true})
			if rec.Err != nil {
				t.Fatalf("%s with %d results: %v", api, results, rec.Err)
			}
			recs = append(recs, rec)
			if results == 2 {
				if len(rec.Tools) != 0 || rec.Text == "" {
					t.Errorf("%s with 2 tool results: tools %+v, text %q; want text", api, rec.Tools, rec.Text)
				}
				continue
			}
			if len(rec.Tools) != 1 || rec.FinishReason != finish[api] {
				t.Fatalf("%s with %d results: tools %+v finish %q", api, results, rec.Tools, rec.FinishReason)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(rec.Tools[0].Arguments), &args); err != nil {
				t.Fatalf("%s: arguments %q: %v", api, rec.Tools[0].Arguments, err)
			}
			_, city := args["city"].(string)
			_, days := args["days"].(float64)
			_, hot := args["hot"].(bool)
			if u := args["unit"]; len(args) != 4 || !city || !days || !hot || (u != "C" && u != "F") {
				t.Errorf("%s: arguments %v do not follow the schema", api, args)
			}
			whole := api == "gemini" || api == "gemini-json" || api == "ollama"
			if pieces := rec.OutputTokens; whole != (pieces == 1) {
				t.Errorf("%s: the arguments came in %d pieces", api, pieces)
			}
		}
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	logs := log.records(t)
	for i, rec := range recs {
		gt := logs[uint64(i)]
		if (gt.ToolCall == nil) != (len(rec.Tools) == 0) {
			t.Fatalf("request %d: log %+v, read %+v", i, gt.ToolCall, rec.Tools)
		}
		if gt.ToolCall == nil {
			continue
		}
		got := rec.Tools[0]
		var a, b any
		_ = json.Unmarshal([]byte(got.Arguments), &a)
		_ = json.Unmarshal([]byte(gt.ToolCall.Arguments), &b)
		if got.Name != gt.ToolCall.Name || got.ID != gt.ToolCall.ID || !jsonEqual(a, b) || gt.FinishReason != rec.FinishReason {
			t.Errorf("request %d (%s): read %+v finish %q, the mock sent %+v finish %q", i, gt.Dialect, got, rec.FinishReason, gt.ToolCall, gt.FinishReason)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestToolRoundsValidated: a negative or huge tool_rounds is refused, named.
func TestToolRoundsValidated(t *testing.T) {
	for _, n := range []int{-1, maxToolRounds + 1} {
		m := ModelConfig{ToolRounds: n}
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "tool_rounds") {
			t.Errorf("tool_rounds %d: %v", n, err)
		}
	}
}

// TestToolsWithoutNameRefused: a tool without a name is a 400 naming it.
func TestToolsWithoutNameRefused(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{})
	res, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"parameters":{}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b struct {
		Error struct{ Message string } `json:"error"`
	}
	_ = json.NewDecoder(res.Body).Decode(&b)
	if res.StatusCode != 400 || !strings.Contains(b.Error.Message, "tools[0]") {
		t.Errorf("status %d, message %q", res.StatusCode, b.Error.Message)
	}
}
