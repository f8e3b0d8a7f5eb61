package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// nodeCase is one SDK call of driver.mjs.
type nodeCase struct {
	ID        int    `json:"id"`
	SDK       string `json:"sdk"`
	Dialect   string `json:"dialect"`
	Model     string `json:"model"`
	Stream    bool   `json:"stream"`
	MaxTokens int    `json:"max_tokens,omitempty"`

	fault fault
}

// nodeResult is what driver.mjs read for a case.
type nodeResult struct {
	ID           int    `json:"id"`
	Deltas       string `json:"deltas"`
	Text         string `json:"text"`
	Reasoning    string `json:"reasoning"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	Finish       string `json:"finish"`
	Events       int    `json:"events"`
	Error        *struct {
		Class   string `json:"class"`
		Status  int    `json:"status"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c nodeCase) String() string {
	mode := "whole"
	if c.Stream {
		mode = "stream"
	}
	name := fmt.Sprintf("%s/%s/%s/%s", c.SDK, c.Dialect, mode, c.Model)
	if c.MaxTokens > 0 {
		name += "-cut"
	}
	return name
}

// nodeSDKs are the node SDKs and the dialects each speaks.
var nodeSDKs = []struct{ sdk, dialect string }{
	{"openai", "chat"}, {"openai", "completions"}, {"openai", "responses"},
	{"anthropic", "messages"}, {"genai", "gemini"}, {"cohere", "cohere"}, {"ollama", "ollama"},
}

// nodeDir is conformance/node; it returns "" (and why) when node, npm or the
// installed SDKs are missing.
func nodeDir() (string, string) {
	dir, err := filepath.Abs("node")
	if err != nil {
		return "", err.Error()
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node is not on PATH (install node and npm, e.g. apt-get install nodejs npm, then run npm ci --prefix conformance/node)"
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil {
		return "", "the node SDKs are not installed: run npm ci --prefix conformance/node"
	}
	return dir, ""
}

func TestNodeSDKs(t *testing.T) {
	dir, why := nodeDir()
	if dir == "" {
		t.Skip("skipping the node SDK conformance tests: " + why)
	}
	url := startMock(t)

	var cases []nodeCase
	add := func(c nodeCase) {
		c.ID = len(cases)
		if c.fault != noFault {
			c.Model = string(c.fault)
		}
		cases = append(cases, c)
	}
	for _, s := range nodeSDKs {
		for _, stream := range []bool{true, false} {
			base := nodeCase{SDK: s.sdk, Dialect: s.dialect, Stream: stream}
			for _, model := range []string{"plain", "thinker"} {
				c := base
				c.Model = model
				add(c)
			}
			c := base
			c.Model, c.MaxTokens = "plain", lengthLimit
			add(c)
			for _, f := range allFaults {
				if f.streamOnly() && !stream {
					continue
				}
				c := base
				c.fault = f
				add(c)
			}
		}
	}

	// Paths the mock does not serve, under the ollama and Cohere prefixes.
	unknown := map[int]bool{}
	for _, sdk := range []string{"ollama", "cohere"} {
		unknown[len(cases)] = true
		add(nodeCase{SDK: sdk, Dialect: "unknown-path", Model: "plain"})
	}

	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "driver.mjs", url)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node driver.mjs: %v\n%s", err, stderr.String())
	}
	var results []nodeResult
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(cases) {
		t.Fatalf("driver.mjs answered %d results for %d cases (%v):\n%s\n%s", len(results), len(cases), err, out, stderr.String())
	}
	for i, c := range cases {
		r := results[i]
		if unknown[i] {
			t.Run(c.SDK+"/unknown-path", func(t *testing.T) { checkUnknownPath(t, c, r) })
			continue
		}
		t.Run(c.String(), func(t *testing.T) { checkNode(t, c, r) })
	}
}

func checkNode(t *testing.T, c nodeCase, r nodeResult) {
	if os.Getenv("CONFORMANCE_DUMP") != "" {
		b, _ := json.Marshal(r)
		t.Logf("%s %s", c, b)
	}
	if c.fault != noFault {
		checkNodeFault(t, c, r)
		return
	}
	if r.Error != nil {
		t.Fatalf("error %s (status %d): %s", r.Error.Class, r.Error.Status, r.Error.Message)
	}
	w := wantFor(c.Dialect, c.Model, c.MaxTokens)
	if r.Text != w.text {
		t.Errorf("text %q, want %q", r.Text, w.text)
	}
	if c.Stream && r.Deltas != w.text {
		t.Errorf("the deltas' text %q, want %q", r.Deltas, w.text)
	}
	if r.Reasoning != w.reasoning && !(c.Dialect == "chat" && c.Stream && r.Reasoning == "") {
		t.Errorf("reasoning %q, want %q", r.Reasoning, w.reasoning)
	}
	if r.InputTokens != inputTokens || r.OutputTokens != w.output {
		t.Errorf("usage %d in, %d out; want %d, %d", r.InputTokens, r.OutputTokens, inputTokens, w.output)
	}
	if r.Finish != w.finish {
		t.Errorf("finish %q, want %q", r.Finish, w.finish)
	}
}

// faultWant is how an SDK surfaces a fault: the class of the error it raises
// ("" for none) and the HTTP status on it (0: none).
type faultWant struct {
	class  string
	status int
}

// nodeFaults is what each node SDK does with each fault of the mock, as the
// SDK's own code does it against the real providers' shapes. A fault missing
// here for a streamed case fails the test: every combination is decided.
var nodeFaults = map[string]faultWant{
	"openai/*/fault-429":                    {"RateLimitError", 429},
	"openai/*/fault-5xx":                    {"InternalServerError", 503},
	"openai/chat/fault-disconnect":          {"OpenAIError", 0}, // "terminated", wrapped by the accumulator
	"openai/completions/fault-disconnect":   {"TypeError", 0},   // undici's "terminated", the raw stream
	"openai/responses/fault-disconnect":     {"OpenAIError", 0},
	"openai/chat/fault-malformed":           {"OpenAIError", 0},
	"openai/completions/fault-malformed":    {"SyntaxError", 0},
	"openai/responses/fault-malformed":      {"OpenAIError", 0},
	"openai/*/fault-error-event":            {"APIError", 0},
	"openai/chat/fault-not-streamed":        {"OpenAIError", 0}, // "request ended without sending any chunks"
	"openai/completions/fault-not-streamed": {"", 0},            // the raw stream ends empty, no error
	"openai/responses/fault-not-streamed":   {"OpenAIError", 0}, // "request ended without sending any events"
	"anthropic/*/fault-429":                 {"RateLimitError", 429},
	"anthropic/*/fault-5xx":                 {"ServiceUnavailableError", 503},
	"anthropic/*/fault-disconnect":          {"AnthropicError", 0},
	"anthropic/*/fault-malformed":           {"AnthropicError", 0},
	"anthropic/*/fault-error-event":         {"APIError", 0},
	"anthropic/*/fault-not-streamed":        {"AnthropicError", 0}, // "request ended without sending any chunks"
	"genai/*/fault-429":                     {"ApiError", 429},
	"genai/*/fault-5xx":                     {"ApiError", 503},
	"genai/*/fault-disconnect":              {"TypeError", 0},
	"genai/*/fault-malformed":               {"SyntaxError", 0},
	"genai/*/fault-error-event":             {"ApiError", 500},
	"genai/*/fault-not-streamed":            {"Error", 0}, // "Incomplete JSON segment at the end"
	"cohere/*/fault-429":                    {"TooManyRequestsError", 429},
	"cohere/*/fault-5xx":                    {"ServiceUnavailableError", 503},
	"cohere/*/fault-disconnect":             {"TypeError", 0},
	"cohere/*/fault-malformed":              {"SyntaxError", 0},
	"cohere/*/fault-error-event":            {"", 0}, // message-end with finish_reason ERROR: no exception
	"cohere/*/fault-not-streamed":           {"", 0}, // the stream ends empty, no error
	"ollama/*/fault-429":                    {"ResponseError", 429},
	"ollama/*/fault-5xx":                    {"ResponseError", 503},
	"ollama/*/fault-disconnect":             {"TypeError", 0},
	"ollama/*/fault-malformed":              {"", 0},      // ollama-js skips a line that is not JSON; the stream goes on
	"ollama/*/fault-error-event":            {"Error", 0}, // an {"error": ...} line: a plain Error with its message
	"ollama/*/fault-not-streamed":           {"", 0},      // the whole answer is one NDJSON line: read as the last chunk
}

func lookupFault(c nodeCase) (faultWant, bool) {
	if w, ok := nodeFaults[c.SDK+"/"+c.Dialect+"/"+string(c.fault)]; ok {
		return w, true
	}
	w, ok := nodeFaults[c.SDK+"/*/"+string(c.fault)]
	return w, ok
}

func checkNodeFault(t *testing.T, c nodeCase, r nodeResult) {
	w, ok := lookupFault(c)
	if !ok {
		t.Fatalf("no expectation for %s/%s/%s: decide what the SDK must do", c.SDK, c.Dialect, c.fault)
	}
	switch {
	case w.class == "" && r.Error != nil:
		t.Errorf("error %s (status %d): %s; want none", r.Error.Class, r.Error.Status, r.Error.Message)
	case w.class != "" && r.Error == nil:
		t.Errorf("no error (text %q, finish %q, %d events); want %s", r.Text, r.Finish, r.Events, w.class)
	case w.class != "" && (r.Error.Class != w.class || r.Error.Status != w.status):
		t.Errorf("error %s status %d (%s); want %s status %d", r.Error.Class, r.Error.Status, r.Error.Message, w.class, w.status)
	}
	if r.Error != nil && strings.Contains(r.Error.Message, apiKey) {
		t.Errorf("the error quotes the API key: %s", r.Error.Message)
	}
	// Nothing read may be invented: what the deltas carried is a prefix of the
	// planned answer, and usage, when the SDK reports any, counts it.
	plan := mockllm.FillerText(plainTokens)
	if !strings.HasPrefix(plan, r.Deltas) {
		t.Errorf("deltas %q are not a prefix of the planned %q", r.Deltas, plan)
	}
	sent := len(strings.Fields(r.Deltas))
	switch c.fault {
	case malformed:
		if w.class == "" && (r.Text != plan || r.OutputTokens != plainTokens) {
			t.Errorf("the stream went on past the malformed line: want the whole %q, %d tokens; read %q, %d", plan, plainTokens, r.Text, r.OutputTokens)
		}
		if w.class != "" && (sent == 0 || sent >= plainTokens) {
			t.Errorf("%d tokens read before the %s; want 1..%d", sent, c.fault, plainTokens-1)
		}
	case errorEvent, disconnect:
		if c.Stream && (sent == 0 || sent >= plainTokens) {
			t.Errorf("%d tokens read before the %s; want 1..%d", sent, c.fault, plainTokens-1)
		}
		if r.OutputTokens >= 0 && r.OutputTokens != sent {
			t.Errorf("usage says %d output tokens; %d were sent", r.OutputTokens, sent)
		}
	case notStreamed:
		if c.SDK == "ollama" && (r.Text != plan || r.OutputTokens != plainTokens || r.Finish != "stop") {
			t.Errorf("ollama read %q, %d tokens, finish %q from the whole answer", r.Text, r.OutputTokens, r.Finish)
		}
		if c.SDK != "ollama" && r.Events != 0 {
			t.Errorf("%d events read from a non-streamed answer", r.Events)
		}
	}
	if c.fault == errorEvent && c.SDK == "cohere" && r.Finish != "ERROR" {
		t.Errorf("cohere finish %q; want ERROR", r.Finish)
	}
}

// checkUnknownPath: a path the mock does not serve gets 404 in the API's own
// error shape, so the SDK raises its own error with the mock's message (not
// "[object Object]", what ollama-js made of OpenAI's shape).
func checkUnknownPath(t *testing.T, c nodeCase, r nodeResult) {
	class := map[string]string{"ollama": "ResponseError", "cohere": "NotFoundError"}[c.SDK]
	if r.Error == nil || r.Error.Class != class || r.Error.Status != 404 || !strings.Contains(r.Error.Message, "no endpoint") {
		t.Errorf("error %+v; want %s 404 with the mock's message", r.Error, class)
	}
}
