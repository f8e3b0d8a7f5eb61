package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// lockedBuffer is the mock's request log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

var weatherSchema = map[string]any{"type": "object", "properties": map[string]any{
	"city": map[string]any{"type": "string"}, "days": map[string]any{"type": "integer"}}}

// TestGoSDKToolCalls: the official Go SDKs (openai-go: chat completions and
// Responses; anthropic-sdk-go: messages) read the mock's streamed tool call
// with their own accumulators — the name, id and arguments the mock's log
// says it sent, the finish reason — and their own types for the tool result
// end the loop with text.
func TestGoSDKToolCalls(t *testing.T) {
	log := &lockedBuffer{}
	srv, err := mockllm.New(mockllm.Config{Seed: 29, APIKey: apiKey, Log: log,
		Default: mockllm.ModelConfig{OutputTokens: mockllm.FixedCount(plainTokens)}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv) // binds 127.0.0.1
	defer ts.Close()
	ctx := context.Background()
	type call struct{ id, name, args, finish, after string }
	var got []call

	// openai-go, chat completions.
	{
		c := openAIClient(ts.URL)
		p := openai.ChatCompletionNewParams{Model: "plain",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
			Tools:    []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather", Parameters: weatherSchema})}}
		s := c.Chat.Completions.NewStreaming(ctx, p)
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			acc.AddChunk(s.Current())
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		m := acc.Choices[0].Message
		if len(m.ToolCalls) != 1 {
			t.Fatalf("openai chat: %d tool calls", len(m.ToolCalls))
		}
		tc := m.ToolCalls[0]
		p.Messages = append(p.Messages, m.ToParam(), openai.ToolMessage("sunny", tc.ID))
		f, err := c.Chat.Completions.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, call{tc.ID, tc.Function.Name, tc.Function.Arguments, string(acc.Choices[0].FinishReason), f.Choices[0].Message.Content})
	}
	// openai-go, Responses.
	{
		c := openAIClient(ts.URL)
		in := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(prompt, responses.EasyInputMessageRoleUser)}
		p := responses.ResponseNewParams{Model: "plain", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: in},
			Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather", weatherSchema, false)}}
		s := c.Responses.NewStreaming(ctx, p)
		var final *responses.Response
		for s.Next() {
			if ev := s.Current(); ev.Type == "response.completed" {
				r := ev.Response
				final = &r
			}
		}
		if err := s.Err(); err != nil || final == nil {
			t.Fatalf("openai responses: %v (final %v)", err, final != nil)
		}
		var fc responses.ResponseFunctionToolCall
		for _, it := range final.Output {
			if it.Type == "function_call" {
				fc = it.AsFunctionCall()
			}
		}
		in = append(in, responses.ResponseInputItemParamOfFunctionCall(fc.Arguments, fc.CallID, fc.Name),
			responses.ResponseInputItemParamOfFunctionCallOutput(`{"forecast":"sunny"}`))
		p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: in}
		f, err := c.Responses.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, call{fc.CallID, fc.Name, fc.Arguments, string(final.Status), f.OutputText()})
	}
	// anthropic-sdk-go, messages.
	{
		c := anthropic.NewClient(aoption.WithAPIKey(apiKey), aoption.WithBaseURL(ts.URL), aoption.WithMaxRetries(0))
		p := anthropic.MessageNewParams{Model: "plain", MaxTokens: 1024,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
			Tools: []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
				Properties: weatherSchema["properties"]}, "get_weather")}}
		s := c.Messages.NewStreaming(ctx, p)
		m := anthropic.Message{}
		for s.Next() {
			if err := m.Accumulate(s.Current()); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		var tu anthropic.ToolUseBlock
		for _, b := range m.Content {
			if b.Type == "tool_use" {
				tu = b.AsToolUse()
			}
		}
		p.Messages = append(p.Messages, m.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(tu.ID, "sunny", false)))
		f, err := c.Messages.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, b := range f.Content {
			text += b.Text
		}
		got = append(got, call{tu.ID, tu.Name, string(tu.Input), string(m.StopReason), text})
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}

	// The mock's log: requests 0, 2, 4 called the tool, 1, 3, 5 answered.
	var logs []mockllm.RequestLog
	for _, line := range bytes.Split(bytes.TrimSpace(log.b.Bytes()), []byte("\n")) {
		var l mockllm.RequestLog
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, l)
	}
	byseq := map[uint64]mockllm.RequestLog{}
	for _, l := range logs {
		byseq[l.Seq] = l
	}
	finish := []string{"tool_calls", "completed", "tool_use"}
	for i, g := range got {
		gt, after := byseq[uint64(2*i)], byseq[uint64(2*i+1)]
		if gt.ToolCall == nil || after.ToolCall != nil {
			t.Fatalf("case %d: the mock's calls %+v then %+v", i, gt.ToolCall, after.ToolCall)
		}
		var a, b any
		_ = json.Unmarshal([]byte(g.args), &a)
		_ = json.Unmarshal([]byte(gt.ToolCall.Arguments), &b)
		aj, _ := json.Marshal(a)
		bj, _ := json.Marshal(b)
		if g.id != gt.ToolCall.ID || g.name != "get_weather" || g.name != gt.ToolCall.Name || string(aj) != string(bj) || g.finish != finish[i] {
			t.Errorf("case %d: SDK read %+v; the mock sent %+v", i, g, gt.ToolCall)
		}
		if g.after != mockllm.FillerText(plainTokens) {
			t.Errorf("case %d: after the tool result the SDK read %q, want the text answer", i, g.after)
		}
	}
}
