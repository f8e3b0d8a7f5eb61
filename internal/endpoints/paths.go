package endpoints

import "strings"

// PathDialect maps how an endpoint path ends to the dialect it implies.
type PathDialect struct {
	Suffix  string
	Dialect string
}

// PathDialects is the one path→dialect table: the engine's dialect
// detection (stream.DialectFromPath) and the mock's choice of error shape
// read it. The first entry whose Suffix ends the path wins, so
// "/chat/completions" comes before "/completions" and "/v2/rerank" before
// "/rerank". Besides the default paths of Generation and Calls it knows
// Gemini's non-streaming method and Ollama's /api/generate.
var PathDialects = []PathDialect{
	{"/chat/completions", "openai-chat"},
	{"/completions", "openai-completions"},
	{"/messages", "anthropic-messages"},
	{"/responses", "openai-responses"},
	{":streamGenerateContent", "gemini"},
	{":generateContent", "gemini"},
	{"/v2/chat", "cohere"},
	{"/api/chat", "ollama"},
	{"/api/generate", "ollama"},
	{"/embeddings", "openai-embeddings"},
	{"/v2/embed", "cohere-embed"},
	{"/v2/rerank", "cohere-rerank"},
	{"/rerank", "rerank"},
}

// DialectOfPath is the dialect PathDialects gives a path ("" when none); a
// trailing slash is ignored.
func DialectOfPath(path string) string {
	p := strings.TrimRight(path, "/")
	for _, e := range PathDialects {
		if strings.HasSuffix(p, e.Suffix) {
			return e.Dialect
		}
	}
	return ""
}

// APIPrefixes are the path prefixes that belong to one API whatever the
// endpoint: the mock answers an unknown path under one in that API's error
// shape.
var APIPrefixes = []struct{ Prefix, Dialect string }{
	{"/api/", "ollama"},
	{"/v2/", "cohere"},
	{"/v1beta/", "gemini"},
}

// DialectOfPrefix is the API whose prefix starts path ("" when none).
func DialectOfPrefix(path string) string {
	for _, e := range APIPrefixes {
		if strings.HasPrefix(path, e.Prefix) {
			return e.Dialect
		}
	}
	return ""
}
