package mockllm

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// volatile are the fields whose values change from run to run: the stamps and
// the creation time.
var volatile = regexp.MustCompile(`("` + GroundTruthField + `":|"created":)\d+`)

// TestGoldenWire pins the exact bytes of every answer shape (stamps and
// creation times zeroed), so that a change to a wire format shows in review.
// Run with -update to rewrite them.
func TestGoldenWire(t *testing.T) {
	t.Parallel()
	thinker := ModelConfig{OutputTokens: FixedCount(3), ReasoningTokens: FixedCount(2)}
	_, url := startServer(t, Config{
		Default: ModelConfig{OutputTokens: FixedCount(3)},
		Models:  map[string]ModelConfig{"thinker": thinker},
	})
	const msgs = `"messages":[{"role":"user","content":"hi there"}]`
	for _, tc := range []struct{ name, path, body string }{
		{"chat_stream_usage.sse", "/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},` + msgs + `}`},
		{"chat_stream_continuous_usage.sse", "/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},` + msgs + `}`},
		{"chat_stream_reasoning.sse", "/v1/chat/completions", `{"model":"thinker","stream":true,` + msgs + `}`},
		{"chat.json", "/v1/chat/completions", `{"model":"thinker",` + msgs + `}`},
		{"completions_stream_usage.sse", "/v1/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"prompt":"hi there"}`},
		{"completions.json", "/v1/completions", `{"model":"m","prompt":"hi there"}`},
		{"messages_stream.sse", "/v1/messages", `{"model":"m","stream":true,"max_tokens":64,` + msgs + `}`},
		{"messages_stream_thinking.sse", "/v1/messages", `{"model":"thinker","stream":true,"max_tokens":64,` + msgs + `}`},
		{"messages.json", "/v1/messages", `{"model":"thinker","max_tokens":64,` + msgs + `}`},
	} {
		r := post(t, url+tc.path, tc.body)
		if r.status != 200 || r.readErr != nil {
			t.Fatalf("%s: %d %v", tc.name, r.status, r.readErr)
		}
		got := volatile.ReplaceAll(r.body, []byte("${1}0"))
		path := filepath.Join("testdata", "golden", tc.name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (run with -update if the change is intended):\n%s", tc.name, path, got)
		}
	}
}
