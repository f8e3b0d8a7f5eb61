package moduletest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
)

// TestAgentRequestShapes: the Agent sends its tools, the model's tool call
// and the tool's result in each API's own request shape, as the providers'
// documentation shows them (OpenAI function calling for chat completions
// and Responses; Anthropic tool use; Gemini function calling; Cohere v2 tool
// use; ollama /api/chat tools), and as the mock (which parses these shapes
// to decide when a loop ends) reads them in TestAgentStepAndTaskMetricsEqualGroundTruth.
func TestAgentRequestShapes(t *testing.T) {
	t.Parallel()
	call := map[string]any{"id": "call_1", "name": "get_weather", "arguments": `{"city":"Paris"}`,
		"first_arg_ms": 21.5, "parse_error": ""}
	withTool := recordJSON(with(okRecord(), "tools", []any{call}, "tool_calls", 1))
	h := newFakeHelper(t, map[string]answer{"Q": {status: 200, body: withTool}, "": {status: 200, body: withTool}})
	path := script(t, `
import { Agent } from 'file://`+modulePath+`';
const tools = [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
export default function () {
  for (const api of ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini', 'cohere', 'ollama']) {
    const c = new Client({ baseURL: 'http://127.0.0.1:9', api: api, model: 'm' });
    const task = new Agent(c, { tools: tools, maxSteps: 2, system: 'S', results: { get_weather: 'sunny' } }).run('Q');
    emit({ api: api, steps: task.steps.length, completed: task.completed, calls: task.steps[0].toolCalls });
  }
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	reqs := h.requests()
	if len(reqs) != 12 {
		t.Fatalf("%d requests, want 2 steps × 6 APIs", len(reqs))
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}
	fn := map[string]any{"name": "get_weather", "description": "Weather", "parameters": schema}
	openAITools := []any{map[string]any{"type": "function", "function": fn}}
	assistantCall := []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}
	user := map[string]any{"role": "user", "content": "Q"}
	system := map[string]any{"role": "system", "content": "S"}
	want := map[string]map[string]any{
		"openai-chat": {"tools": openAITools, "messages": []any{system, user,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": assistantCall},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "sunny"}}},
		"cohere": {"tools": openAITools, "messages": []any{system, user,
			map[string]any{"role": "assistant", "tool_calls": assistantCall},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "sunny"}}},
		"ollama": {"tools": openAITools, "messages": []any{system, user,
			map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"function": map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}}},
			map[string]any{"role": "tool", "tool_name": "get_weather", "content": "sunny"}}},
		"anthropic-messages": {"tools": []any{map[string]any{"name": "get_weather", "description": "Weather", "input_schema": schema}},
			"system": "S", "messages": []any{user,
				map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": map[string]any{"city": "Paris"}}}},
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "call_1", "content": "sunny"}}}}},
		"openai-responses": {"tools": []any{map[string]any{"type": "function", "name": "get_weather", "description": "Weather", "parameters": schema, "strict": false}},
			"instructions": "S", "input": []any{user,
				map[string]any{"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": `{"city":"Paris"}`},
				map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "sunny"}}},
		"gemini": {"tools": []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "get_weather", "description": "Weather", "parametersJsonSchema": schema}}}},
			"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "S"}}},
			"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Q"}}},
				map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "get_weather", "args": map[string]any{"city": "Paris"}}}}},
				map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "get_weather", "response": map[string]any{"result": "sunny"}}}}}}},
	}
	for i := 1; i < len(reqs); i += 2 {
		r := reqs[i]
		w, ok := want[r.API]
		if !ok {
			t.Fatalf("request of api %q", r.API)
		}
		for k, v := range w {
			if !reflect.DeepEqual(r.Body[k], v) {
				got, _ := json.Marshal(r.Body[k])
				exp, _ := json.Marshal(v)
				t.Errorf("%s step 2 %s:\n got  %s\n want %s", r.API, k, got, exp)
			}
		}
		if first := reqs[i-1]; !reflect.DeepEqual(first.Body["tools"], w["tools"]) {
			t.Errorf("%s step 1 tools %v", r.API, first.Body["tools"])
		}
	}
	// The script sees the call parsed; a task whose second answer is text
	// (the chat-shaped APIs here: their step 2 prompt is the tool result)
	// completed, the others ran out of steps.
	n := 0
	for _, line := range res.Console {
		if !strings.Contains(line, "RESULT ") {
			continue
		}
		n++
		completed := strings.Contains(line, `"api":"openai-chat"`) || strings.Contains(line, `"api":"cohere"`) || strings.Contains(line, `"api":"ollama"`)
		want := `"steps":2,"completed":` + map[bool]string{true: "true", false: "false"}[completed] +
			`,"calls":[{"id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","args":{"city":"Paris"},"firstArg":21.5,"parseError":""}]`
		if !strings.Contains(line, want) {
			t.Errorf("task result %s, want %s", line, want)
		}
	}
	if n != 6 {
		t.Errorf("%d task results, want 6", n)
	}
}

// TestToolStrict: a tool's strict reaches Responses (always sent: false
// unless the tool says true, the API's default being true) and OpenAI chat
// (only when given); anything but a boolean is refused, naming the tool.
func TestToolStrict(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	res := run(t, script(t, `
import { toolsFor } from 'file://`+modulePath+`';
export default function () {
  const p = { type: 'object', properties: {} };
  emit({ r: toolsFor('openai-responses', [{ name: 'a', parameters: p, strict: true }, { name: 'b', parameters: p }]).map((t) => t.strict),
    c: toolsFor('openai-chat', [{ name: 'a', parameters: p, strict: true }, { name: 'b', parameters: p }]).map((t) => t.function.strict === undefined ? 'unset' : t.function.strict),
    o: 'strict' in toolsFor('ollama', [{ name: 'a', strict: true }])[0].function });
  let err = '';
  try { toolsFor('openai-chat', [{ name: 'a' }, { name: 'b', strict: 'yes' }]); } catch (e) { err = String(e.message); }
  emit({ err: err });
}
`), env(h), k6sim.Config{}, false)
	var lines []string
	for _, l := range res.Console {
		if _, after, ok := strings.Cut(l, "RESULT "); ok {
			lines = append(lines, after)
		}
	}
	want := []string{`{"r":[true,false],"c":[true,"unset"],"o":false}`, `{"err":"llmstream: tools[1].strict must be true or false, got \"yes\""}`}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("results %q, want %q", lines, want)
	}
}

// TestSeriesTagsReachK6: a series' own tags (the reason of a tool call's
// parse failure, one per value in sample_tags) are added on top of the
// request's tags, each to its own value, in an answer the helper's Go type
// writes.
func TestSeriesTagsReachK6(t *testing.T) {
	t.Parallel()
	samples := helper.AnswerSamples{{Metric: "llm_tool_calls", Values: []float64{3}},
		{Metric: "llm_tool_call_parse_failures", Values: []float64{2}, Tags: map[string]string{"reason": "invalid_json"}},
		{Metric: "llm_tool_call_parse_failures", Values: []float64{1}, Tags: map[string]string{"reason": "not_object"}}}
	b, err := json.Marshal(helper.Answer{Version: helper.AnswerVersion, OK: true, Status: 200, ID: "x",
		Tags:    helper.AnswerTags{Model: "m", API: "openai-chat", Status: "200", TokenSource: "usage"},
		Samples: samples, SampleTags: samples.Tags()})
	if err != nil {
		t.Fatal(err)
	}
	h := newFakeHelper(t, map[string]answer{"P": {status: 200, body: string(b)}})
	res := run(t, script(t, `
const c = new Client({ baseURL: 'http://127.0.0.1:9', tags: { suite: 's' } });
export default function () { c.chat('P'); }
`), env(h), k6sim.Config{}, false)
	got := map[float64]map[string]string{}
	for _, s := range res.Samples {
		if s.Metric == "llm_tool_call_parse_failures" {
			got[s.Value] = s.Tags
		}
	}
	if len(got) != 2 || got[2]["reason"] != "invalid_json" || got[1]["reason"] != "not_object" || got[2]["suite"] != "s" || got[1]["api"] != "openai-chat" {
		t.Errorf("parse failure samples' tags by value %v, want 2: invalid_json, 1: not_object, each with the request's", got)
	}
	for _, s := range res.Samples {
		if s.Metric == "llm_tool_calls" && s.Tags["reason"] != "" {
			t.Errorf("llm_tool_calls got the other series' tag: %v", s.Tags)
		}
	}
}
