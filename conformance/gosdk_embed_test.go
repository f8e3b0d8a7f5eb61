package conformance

import (
	"context"
	"math"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// TestGoSDKEmbeddings has openai-go's own Embeddings.New read the mock's
// /v1/embeddings answer: one vector per input, in order, of the mock's
// length and unit norm, and usage's prompt tokens. So the shape the mock
// serves, and that the engine decodes, is the one the official SDK reads.
func TestGoSDKEmbeddings(t *testing.T) {
	url := startMock(t)
	c := openAIClient(url)
	inputs := []string{"the first input", "a second, longer input of a few more words", "third"}
	res, err := c.Embeddings.New(context.Background(), openai.EmbeddingNewParams{
		Model: "plain",
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: inputs},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Data) != len(inputs) {
		t.Fatalf("%d vectors for %d inputs", len(res.Data), len(inputs))
	}
	for i, d := range res.Data {
		if d.Index != int64(i) {
			t.Errorf("vector %d has index %d", i, d.Index)
		}
		if len(d.Embedding) != mockllm.DefaultEmbedDims {
			t.Errorf("vector %d has %d dimensions, want %d", i, len(d.Embedding), mockllm.DefaultEmbedDims)
		}
		norm := 0.0
		for _, v := range d.Embedding {
			norm += v * v
		}
		if math.Abs(math.Sqrt(norm)-1) > 1e-6 {
			t.Errorf("vector %d has norm %v, want 1", i, math.Sqrt(norm))
		}
	}
	if res.Usage.PromptTokens <= int64(len(inputs)) || res.Usage.TotalTokens != res.Usage.PromptTokens {
		t.Errorf("usage %+v: want prompt tokens above the input count, total equal to them", res.Usage)
	}
}
