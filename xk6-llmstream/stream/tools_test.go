package stream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolCallsOfRecordedStreams decodes recorded streams of every dialect
// that carry tool calls (testdata/sse: real captures; testdata/cases: shapes
// from the providers' documentation) and checks each call's id, name and
// arguments as the stream spelled them.
func TestToolCallsOfRecordedStreams(t *testing.T) {
	for _, c := range []struct {
		file string
		d    Dialect
		want []ToolCall
	}{
		{"../../testdata/sse/openai_chat_tool_calls_usage_obfuscation.sse", DialectAuto,
			[]ToolCall{{ID: "call_ZR5UUuTt3pf61kjwAJIYdVMj", Name: "get_capital", Arguments: `{"country":"UK"}`}}},
		{"../../testdata/sse/groq-chat-gptoss-toolcall-xgroq.sse", DialectAuto,
			[]ToolCall{{ID: "fc_bfb39741-3748-4def-9886-a93fc9c64a90", Name: "get_something_by_name", Arguments: `{"name":"example"}`}}},
		{"../../testdata/sse/oai-resp-gpt5-reasoning-toolcall.sse", DialectAuto,
			[]ToolCall{{ID: "call_CWXgs68YprAjp6t0371hiPOI", Name: "final_result", Arguments: `{"result":6666}`}}},
		{"../../testdata/sse/gemini-3pro-functioncall-thoughtsig.sse", DialectAuto,
			[]ToolCall{{Name: "get_country", Arguments: `{}`}}},
		{"testdata/cases/anthropic_tool_use_input_json.sse", DialectAuto,
			[]ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"location": "Paris"}`}}},
		{"testdata/cases/cohere_tool_plan_tool_call_event_lines.sse", DialectAuto,
			[]ToolCall{{ID: "get_weather_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{"testdata/cases/ollama_native_tool_call_then_error.ndjson", Ollama,
			[]ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{"testdata/cases/openai_chat_parallel_tool_calls.sse", DialectAuto,
			[]ToolCall{{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`}, {ID: "call_b", Name: "get_time", Arguments: `{"tz":"CET"}`}}},
		{"testdata/cases/responses_no_event_lines_args_only_done_incomplete.sse", DialectAuto,
			[]ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		// Gemini's streamed partialArgs are path/value pieces, not JSON
		// text: the call's name is kept, its arguments are not.
		{"testdata/cases/gemini_streamed_function_call_args.sse", DialectAuto,
			[]ToolCall{{Name: "get_weather"}}},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			f, err := os.Open(c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rec, err := Decode(f, c.d)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Tools) != len(c.want) || rec.ToolCalls != len(c.want) {
				t.Fatalf("%d tools kept, %d counted: %+v; want %+v", len(rec.Tools), rec.ToolCalls, rec.Tools, c.want)
			}
			for i, w := range c.want {
				g := rec.Tools[i]
				if g.ID != w.ID || g.Name != w.Name || g.Arguments != w.Arguments || g.ParseError != "" || !g.HasFirstArg {
					t.Errorf("tool %d: %+v, want %+v with arguments seen and no parse error", i, g, w)
				}
			}
		})
	}
}

// TestToolCallArgumentsThatDoNotParse: arguments cut short and arguments
// that are not an object are reported with their reason; too large ones are
// cut and said so.
func TestToolCallArgumentsThatDoNotParse(t *testing.T) {
	chunk := func(args string) string {
		return `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":` + args + `}}]}}]}` + "\n\n"
	}
	for _, c := range []struct {
		name, body, want string
	}{
		{"cut", chunk(`"{\"city\":\"Par"`) + "data: [DONE]\n\n", ToolArgsInvalidJSON},
		{"array", chunk(`"[1,2]"`) + "data: [DONE]\n\n", ToolArgsNotObject},
		{"too large", chunk(`"{\"a\":\"`+strings.Repeat("x", MaxToolArgBytes)+`\"}"`) + "data: [DONE]\n\n", ToolArgsTooLarge},
		{"ok", chunk(`" {\"a\":1}"`) + "data: [DONE]\n\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, err := Decode(strings.NewReader(c.body), OpenAIChat, WithMaxLineBytes(4*MaxToolArgBytes))
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Tools) != 1 || rec.Tools[0].ParseError != c.want {
				t.Fatalf("tools %+v, want one with parse error %q", rec.Tools, c.want)
			}
			if c.want == ToolArgsTooLarge && len(rec.Tools[0].Arguments) != MaxToolArgBytes {
				t.Errorf("arguments kept %d bytes, want the cap %d", len(rec.Tools[0].Arguments), MaxToolArgBytes)
			}
		})
	}
}

// TestToolCallsBeyondTheCapAreCounted: calls over MaxToolCalls are counted
// in ToolCalls and ToolCallsDropped, not lost silently.
func TestToolCallsBeyondTheCapAreCounted(t *testing.T) {
	var sb strings.Builder
	for i := range MaxToolCalls + 3 {
		sb.WriteString(`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"i":`)
		sb.WriteString(strings.Repeat("1", 1+i%3))
		sb.WriteString("}}}]},\"done\":false}\n")
	}
	sb.WriteString(`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n")
	rec, err := Decode(strings.NewReader(sb.String()), Ollama)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ToolCalls != MaxToolCalls+3 || len(rec.Tools) != MaxToolCalls || rec.ToolCallsDropped != 3 {
		t.Errorf("counted %d, kept %d, dropped %d; want %d, %d, 3", rec.ToolCalls, len(rec.Tools), rec.ToolCallsDropped, MaxToolCalls+3, MaxToolCalls)
	}
}

// TestToolCallNamesAndIDsAreBounded: a name or id over its bound is cut at
// the bound and the call marked Truncated (as arguments over their bound
// are cut and marked too_large); calls within the bounds are not marked.
func TestToolCallNamesAndIDsAreBounded(t *testing.T) {
	long := strings.Repeat("n", 100_000)
	event := func(i int, id, name string) string {
		return `data: {"object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":` +
			string(rune('0'+i)) + `,"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":"{}"}}]},"finish_reason":null}]}` + "\n\n"
	}
	body := event(0, "call_1", long) + event(1, "n"+strings.Repeat("é", 50_000), "f") + event(2, "call_3", "g") +
		`data: {"object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	rec, err := Decode(strings.NewReader(body), OpenAIChat)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Tools) != 3 {
		t.Fatalf("kept %d calls, want 3", len(rec.Tools))
	}
	c0, c1, c2 := rec.Tools[0], rec.Tools[1], rec.Tools[2]
	if len(c0.Name) != MaxToolNameBytes || !c0.Truncated || c0.ID != "call_1" {
		t.Errorf("long name: %d bytes, truncated %v", len(c0.Name), c0.Truncated)
	}
	if len(c1.ID) != MaxToolIDBytes-1 || !strings.HasSuffix(c1.ID, "é") || !c1.Truncated || c1.Name != "f" { // é is 2 bytes: cut at a character
		t.Errorf("long id: %d bytes, truncated %v", len(c1.ID), c1.Truncated)
	}
	if c2.Truncated || c2.Name != "g" || c2.ID != "call_3" {
		t.Errorf("short call marked: %+v", c2)
	}
}
