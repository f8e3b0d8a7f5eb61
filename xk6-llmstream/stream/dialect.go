package stream

// Dialect is a streaming wire format.
type Dialect string

// The dialects the engine decodes. Their string values are the `api` tag on k6
// samples and the `api` option of the JavaScript Client.
const (
	// DialectAuto picks the dialect from the URL path (/chat/completions,
	// /completions, /messages) and, failing that, from the first events.
	DialectAuto Dialect = "auto"
	// OpenAIChat is OpenAI chat completions (choices[].delta), as also served by
	// vLLM, llama.cpp, Ollama, SGLang, TGI, DeepSeek, Azure and gateways.
	OpenAIChat Dialect = "openai-chat"
	// OpenAICompletions is OpenAI legacy completions (choices[].text).
	OpenAICompletions Dialect = "openai-completions"
	// AnthropicMessages is Anthropic messages (content_block_delta events).
	AnthropicMessages Dialect = "anthropic-messages"
)
