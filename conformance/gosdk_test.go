package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// goResult is what a Go SDK read for one case, like driver.mjs's results.
type goResult struct {
	deltas, text, reasoning string
	input, output           int64
	finish                  string
	events                  int
	err                     error
}

// goRunner runs one case of a dialect with a Go SDK.
type goRunner func(ctx context.Context, url, model string, stream bool, max int64) goResult

var goSDKs = []struct {
	name, dialect string
	run           goRunner
}{
	{"openai-go", "chat", openAIChat},
	{"openai-go", "completions", openAICompletions},
	{"openai-go", "responses", openAIResponses},
	{"anthropic-sdk-go", "messages", anthropicMessages},
}

// jsonString decodes a raw JSON string; anything else (absent, null) is "".
func jsonString(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

func openAIClient(url string) openai.Client {
	return openai.NewClient(option.WithAPIKey(apiKey), option.WithBaseURL(url+"/v1/"), option.WithMaxRetries(0))
}

func openAIChat(ctx context.Context, url, model string, stream bool, max int64) (r goResult) {
	c := openAIClient(url)
	p := openai.ChatCompletionNewParams{Model: model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)}}
	if max > 0 {
		p.MaxTokens = openai.Int(max)
	}
	var f *openai.ChatCompletion
	if stream {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		s := c.Chat.Completions.NewStreaming(ctx, p)
		var acc openai.ChatCompletionAccumulator
		for s.Next() {
			ch := s.Current()
			r.events++
			acc.AddChunk(ch)
			if len(ch.Choices) > 0 {
				r.deltas += ch.Choices[0].Delta.Content
				// DeepSeek's reasoning_content is not a field of the SDK's types.
				r.reasoning += jsonString(ch.Choices[0].Delta.JSON.ExtraFields["reasoning_content"].Raw())
			}
		}
		if r.err = s.Err(); r.err != nil {
			return r
		}
		f = &acc.ChatCompletion
	} else {
		if f, r.err = c.Chat.Completions.New(ctx, p); r.err != nil {
			return r
		}
	}
	if len(f.Choices) == 0 { // nothing accumulated
		return r
	}
	r.text, r.finish = f.Choices[0].Message.Content, f.Choices[0].FinishReason
	if !stream {
		r.reasoning = jsonString(f.Choices[0].Message.JSON.ExtraFields["reasoning_content"].Raw())
	}
	r.input, r.output = f.Usage.PromptTokens, f.Usage.CompletionTokens
	return r
}

func openAICompletions(ctx context.Context, url, model string, stream bool, max int64) (r goResult) {
	c := openAIClient(url)
	p := openai.CompletionNewParams{Model: openai.CompletionNewParamsModel(model), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)}}
	if max > 0 {
		p.MaxTokens = openai.Int(max)
	}
	if !stream {
		f, err := c.Completions.New(ctx, p)
		if r.err = err; err != nil {
			return r
		}
		r.text, r.finish = f.Choices[0].Text, string(f.Choices[0].FinishReason)
		r.input, r.output = f.Usage.PromptTokens, f.Usage.CompletionTokens
		return r
	}
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := c.Completions.NewStreaming(ctx, p)
	r.input, r.output = -1, -1
	for s.Next() {
		ch := s.Current()
		r.events++
		if len(ch.Choices) > 0 {
			r.deltas += ch.Choices[0].Text
			if ch.Choices[0].FinishReason != "" {
				r.finish = string(ch.Choices[0].FinishReason)
			}
		}
		if ch.JSON.Usage.Valid() {
			r.input, r.output = ch.Usage.PromptTokens, ch.Usage.CompletionTokens
		}
	}
	r.err, r.text = s.Err(), r.deltas
	return r
}

func openAIResponses(ctx context.Context, url, model string, stream bool, max int64) (r goResult) {
	c := openAIClient(url)
	p := responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)}}
	if max > 0 {
		p.MaxOutputTokens = openai.Int(max)
	}
	var f *responses.Response
	if stream {
		s := c.Responses.NewStreaming(ctx, p)
		for s.Next() {
			ev := s.Current()
			r.events++
			switch ev.Type {
			case "response.output_text.delta":
				r.deltas += ev.Delta
			case "response.completed", "response.incomplete":
				resp := ev.Response
				f = &resp
			}
		}
		if r.err = s.Err(); r.err != nil {
			return r
		}
		if f == nil { // no terminal event: nothing to read
			return r
		}
	} else {
		var err error
		if f, err = c.Responses.New(ctx, p); err != nil {
			r.err = err
			return r
		}
	}
	r.text, r.finish = f.OutputText(), string(f.Status)
	for _, it := range f.Output {
		for _, s := range it.Summary {
			r.reasoning += s.Text
		}
	}
	r.input, r.output = f.Usage.InputTokens, f.Usage.OutputTokens
	return r
}

func anthropicMessages(ctx context.Context, url, model string, stream bool, max int64) (r goResult) {
	c := anthropic.NewClient(aoption.WithAPIKey(apiKey), aoption.WithBaseURL(url), aoption.WithMaxRetries(0))
	if max == 0 {
		max = 1024
	}
	p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: max,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))}}
	f := &anthropic.Message{}
	if stream {
		s := c.Messages.NewStreaming(ctx, p)
		for s.Next() {
			ev := s.Current()
			r.events++
			if err := f.Accumulate(ev); err != nil {
				r.err = err
				return r
			}
			if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
				r.deltas += ev.Delta.Text
			}
		}
		if r.err = s.Err(); r.err != nil {
			return r
		}
	} else {
		var err error
		if f, err = c.Messages.New(ctx, p); err != nil {
			r.err = err
			return r
		}
	}
	for _, b := range f.Content {
		switch b.Type {
		case "text":
			r.text += b.Text
		case "thinking":
			r.reasoning += b.Thinking
		}
	}
	r.finish = string(f.StopReason)
	r.input, r.output = f.Usage.InputTokens, f.Usage.OutputTokens
	return r
}

func TestGoSDKs(t *testing.T) {
	url := startMock(t)
	for _, sdk := range goSDKs {
		for _, stream := range []bool{true, false} {
			mode := "whole"
			if stream {
				mode = "stream"
			}
			for _, tc := range []struct {
				model string
				max   int64
			}{{"plain", 0}, {"thinker", 0}, {"plain", lengthLimit}} {
				name := fmt.Sprintf("%s/%s/%s/%s", sdk.name, sdk.dialect, mode, tc.model)
				if tc.max > 0 {
					name += "-cut"
				}
				t.Run(name, func(t *testing.T) {
					r := sdk.run(context.Background(), url, tc.model, stream, tc.max)
					if r.err != nil {
						t.Fatal(r.err)
					}
					w := wantFor(sdk.dialect, tc.model, int(tc.max))
					if r.text != w.text || (stream && r.deltas != w.text) {
						t.Errorf("text %q (deltas %q), want %q", r.text, r.deltas, w.text)
					}
					if r.reasoning != w.reasoning {
						t.Errorf("reasoning %q, want %q", r.reasoning, w.reasoning)
					}
					if r.input != inputTokens || r.output != int64(w.output) {
						t.Errorf("usage %d in, %d out; want %d, %d", r.input, r.output, inputTokens, w.output)
					}
					if r.finish != w.finish {
						t.Errorf("finish %q, want %q", r.finish, w.finish)
					}
				})
			}
			for _, f := range allFaults {
				if f.streamOnly() && !stream {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/%s/%s", sdk.name, sdk.dialect, mode, f), func(t *testing.T) {
					r := sdk.run(context.Background(), url, string(f), stream, 0)
					checkGoFault(t, sdk.name, sdk.dialect, f, r)
				})
			}
		}
	}
}

// checkGoFault checks that a fault surfaces as the Go SDK's own error.
func checkGoFault(t *testing.T, sdk, dialect string, f fault, r goResult) {
	var apiErr *openai.Error // anthropic.Error is the same shape, another type
	var aErr *anthropic.Error
	var streamErr *ssestream.StreamError
	status := 0
	switch {
	case errors.As(r.err, &apiErr):
		status = apiErr.StatusCode
	case errors.As(r.err, &aErr):
		status = aErr.StatusCode
	}
	if r.err != nil && strings.Contains(r.err.Error(), apiKey) {
		t.Errorf("the error quotes the API key: %v", r.err)
	}
	plan := mockllm.FillerText(plainTokens)
	if !strings.HasPrefix(plan, r.deltas) {
		t.Errorf("deltas %q are not a prefix of the planned %q", r.deltas, plan)
	}
	sent := len(strings.Fields(r.deltas))
	switch f {
	case fault429, fault5xx:
		want := 429
		if f == fault5xx {
			want = mockllm.DefaultStatus5xx
		}
		if status != want {
			t.Errorf("error %v (status %d); want the SDK's API error with status %d", r.err, status, want)
		}
	case errorEvent:
		switch {
		case sdk == "anthropic-sdk-go" && aErr == nil && !errors.As(r.err, &aErr):
			t.Errorf("error %v (%T); want *anthropic.Error from the error event", r.err, r.err)
		case sdk == "openai-go" && !errors.As(r.err, &streamErr):
			t.Errorf("error %v (%T); want *ssestream.StreamError from the error event", r.err, r.err)
		case !strings.Contains(fmt.Sprint(r.err), "injected error event"):
			t.Errorf("error %v does not carry the event's message", r.err)
		}
		if sent == 0 || sent >= plainTokens {
			t.Errorf("%d tokens read before the error event; want 1..%d", sent, plainTokens-1)
		}
	case disconnect, malformed:
		if r.err == nil {
			t.Errorf("no error after %d events (text %q)", r.events, r.text)
		}
		if sent == 0 || sent >= plainTokens {
			t.Errorf("%d tokens read before the %s; want 1..%d", sent, f, plainTokens-1)
		}
	case notStreamed:
		// The Go SDKs read the JSON document as an event stream without
		// events: no error, nothing read, an empty final object.
		if r.err != nil || r.events != 0 || r.text != "" || r.finish != "" {
			t.Errorf("error %v, %d events, text %q, finish %q from a non-streamed answer; want none", r.err, r.events, r.text, r.finish)
		}
	}
}
