// Package conformance runs official provider SDKs (Go and node) against the
// mock LLM (mockllm) and checks that each reads what the mock
// sent: text, usage, finish reason, the SDK's accumulated final object, and
// that every injected fault surfaces as the SDK's own error.
//
// It is a nested module so that the product's go.mod does not carry the SDKs;
// `go test ./...` at the repository root does not enter it. Run it with
//
//	npm ci --prefix conformance/node && (cd conformance && go test ./...)
package conformance

import (
	"net/http/httptest"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// The prompt every case sends: three words, so three input tokens.
const (
	prompt      = "three word prompt"
	inputTokens = 3
	apiKey      = "sk-conformance"
)

// The mock's models: plain answers 8 tokens, thinker 4 reasoning then 6
// answer tokens, and each fault model fails every request with its fault.
const (
	plainTokens                     = 8
	thinkerReasoning, thinkerAnswer = 4, 6
	lengthLimit                     = 5 // max tokens of the cut-short case
)

// fault names a model of the mock that injects one fault in every request.
type fault string

const (
	noFault     fault = ""
	fault429    fault = "fault-429"
	fault5xx    fault = "fault-5xx"
	disconnect  fault = "fault-disconnect"
	malformed   fault = "fault-malformed"
	errorEvent  fault = "fault-error-event"
	notStreamed fault = "fault-not-streamed"
)

var allFaults = []fault{fault429, fault5xx, disconnect, malformed, errorEvent, notStreamed}

// streamOnly reports whether a fault applies to streamed requests only (the
// mock answers a non-streamed request drawn for it normally).
func (f fault) streamOnly() bool { return f != fault429 && f != fault5xx }

// startMock serves the mock on 127.0.0.1 and returns its base URL.
func startMock(t *testing.T) string {
	t.Helper()
	plain := mockllm.ModelConfig{OutputTokens: mockllm.FixedCount(plainTokens)}
	thinker := mockllm.ModelConfig{OutputTokens: mockllm.FixedCount(thinkerAnswer), ReasoningTokens: mockllm.FixedCount(thinkerReasoning)}
	models := map[string]mockllm.ModelConfig{"plain": plain, "thinker": thinker}
	for _, f := range allFaults {
		mc := plain
		switch f {
		case fault429:
			mc.Faults.HTTP429 = 1
		case fault5xx:
			mc.Faults.HTTP5xx = 1
		case disconnect:
			mc.Faults.Disconnect = 1
		case malformed:
			mc.Faults.Malformed = 1
		case errorEvent:
			mc.Faults.ErrorEvent = 1
		case notStreamed:
			mc.Faults.NotStreamed = 1
		}
		models[string(f)] = mc
	}
	srv, err := mockllm.New(mockllm.Config{Seed: 23, APIKey: apiKey, Default: plain, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv) // binds 127.0.0.1
	t.Cleanup(func() {
		ts.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("mock Close: %v", err)
		}
	})
	return ts.URL
}

// finishWords are each dialect's finish reasons for a normal end and a cut at
// the token limit, as the SDKs report them.
var finishWords = map[string][2]string{
	"chat":        {"stop", "length"},
	"completions": {"stop", "length"},
	"responses":   {"completed", "incomplete"},
	"messages":    {"end_turn", "max_tokens"},
	"gemini":      {"STOP", "MAX_TOKENS"},
	"cohere":      {"COMPLETE", "MAX_TOKENS"},
	"ollama":      {"stop", "length"},
}

// want is what a successful case must read.
type want struct {
	text, reasoning string
	output          int
	finish          string
}

// wantFor is what model answers in dialect (max > 0: the cut-short case).
func wantFor(dialect, model string, max int) want {
	switch {
	case max > 0:
		return want{mockllm.FillerText(max), "", max, finishWords[dialect][1]}
	case model == "thinker" && dialect == "completions": // no reasoning phase in completions
		return want{mockllm.FillerText(thinkerAnswer), "", thinkerAnswer, finishWords[dialect][0]}
	case model == "thinker":
		return want{mockllm.FillerText(thinkerAnswer), mockllm.FillerText(thinkerReasoning), thinkerReasoning + thinkerAnswer, finishWords[dialect][0]}
	}
	return want{mockllm.FillerText(plainTokens), "", plainTokens, finishWords[dialect][0]}
}
