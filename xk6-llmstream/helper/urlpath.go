package helper

import "github.com/llmstream/xk6-llmstream/internal/redact"

// safePath is a request path as the helper's logs show it: redact.Path, the
// one rule for URLs in messages (key-shaped segments become the marker).
func safePath(path string) string { return redact.Path(path) }
