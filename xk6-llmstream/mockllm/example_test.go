package mockllm_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// A mock with a 10 ms prefill answers a chat request with five filler tokens.
func ExampleNew() {
	srv, err := mockllm.New(mockllm.Config{
		Seed: 1,
		Default: mockllm.ModelConfig{
			Prefill:      mockllm.Prefill{Base: 10 * time.Millisecond},
			OutputTokens: mockllm.FixedCount(5),
		},
	})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close() // first: ends streams in progress, flushes the log

	resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"demo","messages":[{"role":"user","content":"hello"}]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Model   string
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		panic(err)
	}
	fmt.Println(answer.Model, answer.Usage.CompletionTokens, answer.Choices[0].FinishReason)
	fmt.Printf("%q\n", answer.Choices[0].Message.Content)
	fmt.Println(answer.Choices[0].Message.Content == mockllm.FillerText(5))
	// Output:
	// demo 5 stop
	// "The mock model streams deterministic"
	// true
}

// A profile is JSON over the defaults; per-model settings override the default.
func ExampleParseProfile() {
	cfg, err := mockllm.ParseProfile([]byte(`{
		"slots": 8,
		"default": {"itl": {"base": "20ms"}},
		"models": {"slow": {"itl": {"base": "80ms"}}}
	}`), mockllm.DefaultConfig())
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.Slots, cfg.Default.ITL.Base, cfg.Models["slow"].ITL.Base, cfg.Models["slow"].Prefill.Base)
	// Output: 8 20ms 80ms 150ms
}
