package helper

import (
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// TestTokenAuditFlagsOverReportingMock: a mock that over-reports usage by 10 %
// is flagged per request (llm_output_token_mismatch = 1); an honest one is not
// (0). The mock echoes a prompt of words that are one cl100k_base token each,
// so its true count is the tokenizer's.
func TestTokenAuditFlagsOverReportingMock(t *testing.T) {
	t.Parallel()
	honest := mockllm.ModelConfig{Echo: true, ITL: mockllm.ITL{Base: time.Millisecond}}
	over := honest
	over.UsageOverReport = 0.1
	mock := startMock(t, mockllm.Config{Seed: 1, Default: honest, Models: map[string]mockllm.ModelConfig{"over": over}})
	h := startHelper(t)
	prompt := "the cat sat on a mat and then the dog ran to the park"
	for _, tt := range []struct {
		model    string
		want     float64
		reported int
	}{
		{"honest", 0, 40},
		{"over", 1, 44},
	} {
		code, a, raw := streamVia(t, h.URL(), map[string]any{
			"url": mock + "/v1/chat/completions", "api": "openai-chat",
			"body": map[string]any{"model": tt.model, "max_tokens": 40,
				"messages": []any{map[string]any{"role": "user", "content": prompt}}},
			"token_audit": map[string]any{"tokenizer": "cl100k_base"},
		})
		if code != 200 || !a.OK {
			t.Fatalf("%s: code %d: %s", tt.model, code, raw)
		}
		if a.OutputTokens != tt.reported || a.TokenSource != "usage" {
			t.Errorf("%s: usage %d (%s), want %d", tt.model, a.OutputTokens, a.TokenSource, tt.reported)
		}
		got, ok := a.Value(metrics.OutputTokenMismatch)
		if !ok || got != tt.want {
			t.Errorf("%s: llm_output_token_mismatch %v (present %v), want %v\n%s", tt.model, got, ok, tt.want, raw)
		}
		if a.Text != nil {
			t.Errorf("%s: the audit returned the text though keep_text was not asked", tt.model)
		}
	}
}

// TestTokenAuditOffByDefault: without token_audit no mismatch sample.
func TestTokenAuditOffByDefault(t *testing.T) {
	t.Parallel()
	mock := startMock(t, fixedMock())
	h := startHelper(t)
	code, a, raw := streamVia(t, h.URL(), map[string]any{
		"url": mock + "/v1/chat/completions", "api": "openai-chat",
		"body": map[string]any{"model": "m", "max_tokens": 4, "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
	})
	if code != 200 {
		t.Fatalf("code %d: %s", code, raw)
	}
	if _, ok := a.Value(metrics.OutputTokenMismatch); ok {
		t.Errorf("a mismatch sample without token_audit: %s", raw)
	}
}

// TestTokenAuditRefusals: a bad tokenizer or tolerance is refused, naming it.
func TestTokenAuditRefusals(t *testing.T) {
	t.Parallel()
	h := startHelper(t)
	for _, tt := range []struct {
		audit map[string]any
		want  string
	}{
		{map[string]any{"tokenizer": ""}, "token_audit.tokenizer"},
		{map[string]any{"tokenizer": "no-such-encoding"}, "no-such-encoding"},
		{map[string]any{"tokenizer": "cl100k_base", "tolerance": 2}, "token_audit.tolerance"},
	} {
		code, _, raw := streamVia(t, h.URL(), map[string]any{
			"url": "http://127.0.0.1:1/v1/chat/completions", "api": "openai-chat",
			"body":        map[string]any{"model": "m", "messages": []any{}},
			"token_audit": tt.audit,
		})
		if code != 400 || !strings.Contains(raw, tt.want) {
			t.Errorf("%v: code %d, answer %s; want 400 naming %q", tt.audit, code, raw, tt.want)
		}
	}
}
