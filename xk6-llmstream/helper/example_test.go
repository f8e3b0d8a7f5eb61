package helper_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// Start a helper, stream one chat completion from the mock LLM through it, and
// read the record, as llmstream.js does.
func ExampleStart() {
	mock, _ := mockllm.New(mockllm.Config{}) // instant answers
	upstream := httptest.NewServer(mock)
	defer upstream.Close()
	defer mock.Close()

	h, err := helper.Start("127.0.0.1:0") // loopback upstreams only
	if err != nil {
		panic(err)
	}
	defer h.Shutdown(context.Background())

	req := `{"url": "` + upstream.URL + `/v1/chat/completions", "api": "openai-chat",
	         "headers": {"Authorization": "Bearer sk-example-key-0000"},
	         "body": {"model": "gpt-4o-mini", "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]}}`
	resp, err := http.Post(h.URL()+helper.StreamPath, "application/json", strings.NewReader(req))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var rec helper.Answer
	if err := json.NewDecoder(resp.Body).Decode(&rec); err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode, rec.OK, rec.API, rec.Model)
	_, hasTTFT := rec.Value("llm_ttft")
	fmt.Println("has ttft:", hasTTFT, "gaps:", len(rec.Values("llm_itl")))
	fmt.Println("tokens:", rec.OutputTokens, rec.TokenSource, *rec.FinishReason)
	// Output:
	// 200 true openai-chat gpt-4o-mini
	// has ttft: true gaps: 7
	// tokens: 8 usage length
}
