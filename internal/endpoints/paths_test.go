package endpoints

import (
	"strings"
	"testing"
)

// TestDialectOfPath: every default path names its own dialect (so no
// shorter suffix shadows it), the extra paths theirs, a trailing slash is
// ignored and an unknown path names none.
func TestDialectOfPath(t *testing.T) {
	want := map[string]string{
		"/v1beta/models/m:generateContent": "gemini",
		"/api/generate":                    "ollama",
		"/v1/chat/completions/":            "openai-chat",
		"/rerank":                          "rerank",
		"/openai/deployments/x/embeddings": "openai-embeddings",
		"/v1/models":                       "",
		"/":                                "",
	}
	for _, e := range Generation {
		path, _, _ := strings.Cut(strings.ReplaceAll(e.Path, "{model}", "m"), "?")
		want[path] = e.Dialect
	}
	for _, c := range Calls {
		want[c.Path] = c.Dialect
	}
	for path, d := range want {
		if got := DialectOfPath(path); got != d {
			t.Errorf("DialectOfPath(%q) = %q, want %q", path, got, d)
		}
	}
}

// TestDialectOfPrefix: an API's prefix names it, other paths none.
func TestDialectOfPrefix(t *testing.T) {
	for path, d := range map[string]string{"/api/tags": "ollama", "/v2/embed": "cohere", "/v1beta/x": "gemini", "/v1/models": "", "/apix": ""} {
		if got := DialectOfPrefix(path); got != d {
			t.Errorf("DialectOfPrefix(%q) = %q, want %q", path, got, d)
		}
	}
}
