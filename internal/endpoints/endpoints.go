// Package endpoints is the one list of the LLM APIs' endpoint paths: each
// dialect's generation endpoint, as the module's Client uses it by default
// (llmstream.js's APIS is tested against it), the mock serves it and the
// engine's dialect detection knows it (a test holds DialectFromPath to it).
package endpoints

// Endpoint is one dialect's generation endpoint.
type Endpoint struct {
	// Dialect is the dialect's name (stream.Dialect, the module's api).
	Dialect string
	// Path is the default path; {model} stands for the request's model.
	// Gemini's path carries alt=sse, without which Google answers a JSON
	// array instead of events.
	Path string
	// Route is the path as the mock routes it (http.ServeMux pattern):
	// Gemini's model and method share the last segment.
	Route string
}

// Generation lists every dialect's generation endpoint.
var Generation = []Endpoint{
	{Dialect: "openai-chat", Path: "/v1/chat/completions", Route: "/v1/chat/completions"},
	{Dialect: "openai-completions", Path: "/v1/completions", Route: "/v1/completions"},
	{Dialect: "anthropic-messages", Path: "/v1/messages", Route: "/v1/messages"},
	{Dialect: "openai-responses", Path: "/v1/responses", Route: "/v1/responses"},
	{Dialect: "gemini", Path: "/v1beta/models/{model}:streamGenerateContent?alt=sse", Route: "/v1beta/models/{call}"},
	{Dialect: "cohere", Path: "/v2/chat", Route: "/v2/chat"},
	{Dialect: "ollama", Path: "/api/chat", Route: "/api/chat"},
}

// Calls lists the non-streaming endpoints (embeddings and rerank): each
// API's default path, as the module's embed() and rerank() use it, the
// mock serves it and the engine's DialectFromPath knows it. Kind is "embed"
// or "rerank".
var Calls = []Call{
	{Dialect: "openai-embeddings", Kind: "embed", Path: "/v1/embeddings"},
	{Dialect: "cohere-embed", Kind: "embed", Path: "/v2/embed"},
	{Dialect: "cohere-rerank", Kind: "rerank", Path: "/v2/rerank"},
	// vLLM serves /rerank, /v1/rerank and /v2/rerank (Jina/Cohere shape);
	// Hugging Face TEI serves /rerank (its own shape). The engine reads
	// both answers under this dialect.
	{Dialect: "rerank", Kind: "rerank", Path: "/v1/rerank"},
	{Dialect: "rerank", Kind: "rerank", Path: "/rerank"},
}

// Call is one non-streaming endpoint.
type Call struct {
	Dialect string
	Kind    string // "embed" or "rerank"
	Path    string
}

// AnthropicVersion is the anthropic-version header sent to Anthropic's
// messages API when the user names none: the module Client's default
// (llmstream.js's DEFAULT_ANTHROPIC_VERSION, tested against this) and
// calibrate's probe.
const AnthropicVersion = "2023-06-01"

// The other paths the mock serves.
const (
	Models  = "/v1/models"
	Health  = "/healthz"
	Metrics = "/metrics"
	// GPUMetrics is the mock's DCGM-exporter-like page (GPU utilization,
	// memory, power, SM clock following its load).
	GPUMetrics = "/dcgm/metrics"
)

// Of is a dialect's generation endpoint; false for an unknown dialect.
func Of(dialect string) (Endpoint, bool) {
	for _, e := range Generation {
		if e.Dialect == dialect {
			return e, true
		}
	}
	return Endpoint{}, false
}
