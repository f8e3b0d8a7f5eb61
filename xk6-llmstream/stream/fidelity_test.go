package stream

import (
	"strings"
	"testing"
)

// Engine fidelity on streams real servers send (issue 11, item 11).
func TestDecodeFidelity(t *testing.T) {
	const role = `data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}` + "\n\n"
	tok := func(s string) string {
		return `data: {"choices":[{"index":0,"delta":{"content":"` + s + `"}}]}` + "\n\n"
	}
	for _, tc := range []struct {
		name   string
		in     string
		kind   ErrorKind
		check  func(t *testing.T, r *Record)
		finish string
	}{
		{name: "OpenRouter error chunk keeps its usage",
			in: role + tok("a") + tok("b") +
				`data: {"model":"or/m","error":{"code":502,"message":"provider died"},"choices":[{"index":0,"delta":{},"finish_reason":"error"}],"usage":{"prompt_tokens":11,"completion_tokens":7}}` + "\n\n",
			kind: KindStreamError,
			check: func(t *testing.T, r *Record) {
				if r.TokenSource != TokensFromUsage || r.OutputTokens != 7 || r.InputTokens != 11 {
					t.Errorf("tokens %d/%d from %q; want 7 output, 11 input from usage", r.OutputTokens, r.InputTokens, r.TokenSource)
				}
				if r.Model != "or/m" {
					t.Errorf("model %q, want or/m", r.Model)
				}
			}},
		{name: "final [DONE] without its blank line",
			in: role + tok("a") + tok("b") + `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]",
			check: func(t *testing.T, r *Record) {
				if r.Events != 5 {
					t.Errorf("%d events, want 5 (the final [DONE] counts)", r.Events)
				}
			}},
		{name: "final [DONE] with one line ending only",
			in: role + tok("a") + "data: [DONE]\n",
			check: func(t *testing.T, r *Record) {
				if r.Events != 3 {
					t.Errorf("%d events, want 3", r.Events)
				}
			}},
		{name: "an unfinished event other than [DONE] stays discarded",
			in: role + tok("a") + `data: {"choices":[{"index":0,"delta":{"content":"b"}}]}`, kind: KindResetMidstream},
		{name: "content filter without text is complete",
			in:     role + `data: {"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}` + "\n\n" + "data: [DONE]\n\n",
			finish: "content_filter",
			check: func(t *testing.T, r *Record) {
				if r.HasTTFT || r.TextEvents != 0 {
					t.Errorf("TTFT %v (has %v), %d text events; want none", r.TTFT, r.HasTTFT, r.TextEvents)
				}
			}},
		{name: "Anthropic refusal without text is complete",
			in: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"c\",\"usage\":{\"input_tokens\":3}}}\n\n" +
				"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"},\"usage\":{\"output_tokens\":0}}\n\n" +
				"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
			finish: "refusal"},
		{name: "stop without text is still empty_output",
			in:   role + `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n",
			kind: KindEmptyOutput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Decode(strings.NewReader(tc.in), DialectAuto)
			if err != nil {
				t.Fatal(err)
			}
			got := ErrorKind("")
			if r.Err != nil {
				got = r.Err.Kind
			}
			if got != tc.kind {
				t.Fatalf("error %v, want kind %q", r.Err, tc.kind)
			}
			if tc.finish != "" && r.FinishReason != tc.finish {
				t.Errorf("finish reason %q, want %q", r.FinishReason, tc.finish)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
			checkInvariants(t, r)
		})
	}
}
