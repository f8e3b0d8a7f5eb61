package stream

// Dialect is a streaming wire format.
type Dialect string

// The dialects the engine decodes. Their string values are the `api` tag on k6
// samples and the `api` option of the JavaScript Client.
const (
	// DialectAuto picks the dialect from the URL path (see DialectFromPath)
	// and, failing that, from the first events.
	DialectAuto Dialect = "auto"
	// OpenAIChat is OpenAI chat completions (choices[].delta), as also served by
	// vLLM, llama.cpp, Ollama, SGLang, TGI, DeepSeek, Azure, Mistral, Groq,
	// OpenRouter and gateways.
	OpenAIChat Dialect = "openai-chat"
	// OpenAICompletions is OpenAI legacy completions (choices[].text).
	OpenAICompletions Dialect = "openai-completions"
	// AnthropicMessages is Anthropic messages (content_block_delta events).
	AnthropicMessages Dialect = "anthropic-messages"
	// OpenAIResponses is the OpenAI Responses API (POST /v1/responses):
	// typed events (response.output_text.delta, response.completed, ...).
	OpenAIResponses Dialect = "openai-responses"
	// Gemini is Google's streamGenerateContent with alt=sse (Gemini API and
	// Vertex AI): GenerateContentResponse chunks with cumulative usageMetadata.
	Gemini Dialect = "gemini"
	// Cohere is Cohere's v2 chat stream (message-start, content-delta,
	// tool-call-*, message-end).
	Cohere Dialect = "cohere"
	// Ollama is ollama's native /api/chat and /api/generate stream:
	// newline-delimited JSON (not server-sent events), ending with done:true.
	Ollama Dialect = "ollama"
)
