package stream_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// answerWith serves one fixed JSON body (status 200) on 127.0.0.1.
func answerWith(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestCallDocumentedShapes reads each API's answer in the shape its
// provider documents (OpenAI's embeddings reference, Cohere's v2 embed and
// rerank references, vLLM's rerank example, TEI's /rerank example; values
// shortened): the call's kind, batch, results and input tokens.
func TestCallDocumentedShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path, req, answer string
		kind                    string
		batch, results, tokens  int
		source                  stream.TokenSource
	}{
		{"openai", "/v1/embeddings", `{"model":"text-embedding-3-small","input":["The food was delicious","and the waiter"],"encoding_format":"float"}`,
			`{"object":"list","data":[{"object":"embedding","embedding":[0.0023,-0.0093],"index":0},{"object":"embedding","embedding":[0.01,0.2],"index":1}],"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}`,
			"embed", 2, 2, 8, stream.TokensFromUsage},
		{"openai one string", "/v1/embeddings", `{"model":"m","input":"one text"}`,
			`{"object":"list","data":[{"object":"embedding","embedding":[0.1],"index":0}],"model":"m","usage":{"prompt_tokens":2,"total_tokens":2}}`,
			"embed", 1, 1, 2, stream.TokensFromUsage},
		{"openai token ids", "/v1/embeddings", `{"model":"m","input":[101,2023,102]}`,
			`{"object":"list","data":[{"object":"embedding","embedding":[0.1],"index":0}],"model":"m","usage":{"prompt_tokens":3,"total_tokens":3}}`,
			"embed", 1, 1, 3, stream.TokensFromUsage},
		{"cohere embed", "/v2/embed", `{"model":"embed-v4.0","texts":["hello","goodbye"],"input_type":"classification","embedding_types":["float"]}`,
			`{"id":"da6e531f","embeddings":{"float":[[0.016,0.029],[0.01,0.02]]},"texts":["hello","goodbye"],"meta":{"api_version":{"version":"2"},"billed_units":{"input_tokens":2}},"response_type":"embeddings_by_type"}`,
			"embed", 2, 2, 2, stream.TokensFromUsage},
		{"cohere rerank", "/v2/rerank", `{"model":"rerank-v3.5","query":"What is the capital of the United States?","documents":["Carson City is the capital of Nevada.","Washington, D.C. is the capital of the United States.","Saipan"],"top_n":2}`,
			`{"results":[{"index":1,"relevance_score":0.999},{"index":0,"relevance_score":0.32}],"id":"07734bd2","meta":{"api_version":{"version":"2"},"billed_units":{"search_units":1}}}`,
			"rerank", 3, 2, 0, stream.TokensNone},
		{"vllm rerank", "/v1/rerank", `{"model":"BAAI/bge-reranker-base","query":"What is the capital of France?","documents":["The capital of Brazil is Brasilia.","The capital of France is Paris."]}`,
			`{"id":"rerank-1","model":"BAAI/bge-reranker-base","usage":{"total_tokens":56},"results":[{"index":1,"document":{"text":"The capital of France is Paris."},"relevance_score":0.99},{"index":0,"document":{"text":"The capital of Brazil is Brasilia."},"relevance_score":0.0005}]}`,
			"rerank", 2, 2, 56, stream.TokensFromUsage},
		{"tei rerank", "/rerank", `{"query":"What is Deep Learning?","texts":["Deep Learning is not...","Deep learning is..."]}`,
			`[{"index":1,"score":0.9976},{"index":0,"score":0.0012}]`,
			"rerank", 2, 2, 0, stream.TokensNone},
	}
	c := stream.NewClient()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := c.Do(context.Background(), &stream.Request{URL: answerWith(t, tc.answer) + tc.path, Body: []byte(tc.req)})
			if rec.Err != nil {
				t.Fatalf("error %v", rec.Err)
			}
			if rec.Kind != tc.kind || rec.Batch != tc.batch || rec.Results != tc.results || rec.InputTokens != tc.tokens || rec.TokenSource != tc.source {
				t.Errorf("kind %q batch %d results %d tokens %d (%s), want %q %d %d %d (%s)",
					rec.Kind, rec.Batch, rec.Results, rec.InputTokens, rec.TokenSource, tc.kind, tc.batch, tc.results, tc.tokens, tc.source)
			}
			if rec.HasTTFT || rec.HasTPOT || len(rec.ITL) != 0 || rec.Headers <= 0 || rec.E2E < rec.Headers {
				t.Errorf("timings: ttft %v tpot %v itl %d headers %v e2e %v", rec.HasTTFT, rec.HasTPOT, len(rec.ITL), rec.Headers, rec.E2E)
			}
		})
	}
}

// TestCallBadAnswers: an answer that does not hold what was asked fails as
// malformed, naming what is wrong; a bad request body never reaches the
// server.
func TestCallBadAnswers(t *testing.T) {
	t.Parallel()
	c := stream.NewClient()
	for _, tc := range []struct{ name, path, req, answer, kind, want string }{
		{"fewer vectors", "/v1/embeddings", `{"model":"m","input":["a","b"]}`,
			`{"data":[{"embedding":[1],"index":0}],"usage":{"prompt_tokens":2}}`, "malformed", "1 embeddings for 2 inputs"},
		{"rank out of range", "/v2/rerank", `{"model":"m","query":"q","documents":["a"]}`,
			`{"results":[{"index":4,"relevance_score":0.5}]}`, "malformed", "document 4 of 1"},
		{"rank twice", "/v1/rerank", `{"model":"m","query":"q","documents":["a","b"]}`,
			`{"results":[{"index":1,"relevance_score":0.9},{"index":1,"relevance_score":0.9}]}`, "malformed", "results 0 and 1 both rank document 1"},
		{"tei rank twice", "/rerank", `{"query":"q","texts":["a","b"]}`,
			`[{"index":0,"score":0.9},{"index":0,"score":0.9}]`, "malformed", "results 0 and 1 both rank document 0"},
		{"more results than documents", "/v2/rerank", `{"model":"m","query":"q","documents":["a"]}`,
			`{"results":[{"index":0,"relevance_score":0.5},{"index":0,"relevance_score":0.5}]}`, "malformed", "2 results for 1 documents"},
		{"tei not scored", "/rerank", `{"query":"q","texts":["a"]}`, `[{"index":0}]`, "malformed", "no index or score"},
		{"not json", "/v2/embed", `{"model":"m","texts":["a"]}`, `<html>`, "malformed", "not a JSON object"},
		{"no results", "/v1/rerank", `{"model":"m","query":"q","documents":["a"]}`, `{"id":"x"}`, "malformed", `no "results"`},
		{"no input", "/v1/embeddings", `{"model":"m"}`, `{}`, "invalid_request", `"input": missing`},
		{"empty batch", "/v2/embed", `{"model":"m","texts":[]}`, `{}`, "invalid_request", "empty array"},
		{"no query", "/v2/rerank", `{"model":"m","documents":["a"]}`, `{}`, "invalid_request", `no "query"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := c.Do(context.Background(), &stream.Request{URL: answerWith(t, tc.answer) + tc.path, Body: []byte(tc.req)})
			if rec.Err == nil || string(rec.Err.Kind) != tc.kind || !strings.Contains(rec.Err.Message, tc.want) {
				t.Fatalf("error %v, want %s containing %q", rec.Err, tc.kind, tc.want)
			}
		})
	}
}

// TestCallsAgainstMock: every call endpoint of the mock, through the
// engine: the batch and input tokens equal what the mock counted (words:
// each input's words; rerank adds the query's once per document), and the
// duration is at least the mock's modeled latency (base + per token).
func TestCallsAgainstMock(t *testing.T) {
	t.Parallel()
	const base, perToken = 3 * time.Millisecond, 200 * time.Microsecond
	m, err := mockllm.New(mockllm.Config{Seed: 7, Calls: mockllm.CallLatency{Base: base, PerToken: perToken, Dims: 8}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m)
	t.Cleanup(func() { srv.Close(); _ = m.Close() })
	c := stream.NewClient()
	docs := `["one two three","four five","six"]` // 6 words
	for _, e := range endpoints.Calls {
		t.Run(e.Dialect+e.Path, func(t *testing.T) {
			var body string
			tokens := 6
			switch {
			case e.Dialect == "openai-embeddings":
				body = `{"model":"m","input":` + docs + `}`
			case e.Dialect == "cohere-embed":
				body = `{"model":"m","texts":` + docs + `,"input_type":"search_document","embedding_types":["float"]}`
			case e.Path == "/rerank":
				body = `{"query":"a b","texts":` + docs + `}`
				tokens += 2 * 3
			default:
				body = `{"model":"m","query":"a b","documents":` + docs + `}`
				tokens += 2 * 3
			}
			rec := c.Do(context.Background(), &stream.Request{URL: srv.URL + e.Path, Body: []byte(body)})
			if rec.Err != nil {
				t.Fatal(rec.Err)
			}
			if string(rec.Dialect) != e.Dialect || rec.Kind != e.Kind || rec.Batch != 3 || rec.Results != 3 {
				t.Errorf("dialect %s kind %s batch %d results %d", rec.Dialect, rec.Kind, rec.Batch, rec.Results)
			}
			if rec.TokenSource == stream.TokensFromUsage && rec.InputTokens != tokens {
				t.Errorf("input tokens %d, the mock counted %d", rec.InputTokens, tokens)
			}
			wantUsage := e.Dialect != "cohere-rerank" && e.Path != "/rerank"
			if wantUsage != (rec.TokenSource == stream.TokensFromUsage) {
				t.Errorf("token source %s", rec.TokenSource)
			}
			if model := base + time.Duration(tokens)*perToken; rec.E2E < model {
				t.Errorf("e2e %v is shorter than the mock's modeled latency %v", rec.E2E, model)
			}
		})
	}
	if _, ok := stream.ParseDialect("cohere-rerank"); !ok {
		t.Error("ParseDialect does not know cohere-rerank")
	}
}
