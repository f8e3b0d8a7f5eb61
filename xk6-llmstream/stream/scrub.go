package stream

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/internal/truncate"
)

// maxMessage is the longest error message a Record carries (in bytes, cut at
// a rune boundary); server bodies quoted in messages are cut to fit.
const maxMessage = 300

// newScrubber collects the secrets of one request (its header values, URL
// user info and query values): messages pass through it, which also removes
// anything shaped like an API key. The rule is the project's one redaction,
// shared with the helper.
func newScrubber(h http.Header, rawURL string) *redact.Redactor {
	u, err := url.Parse(rawURL)
	if err != nil {
		u = nil
	}
	return redact.New(h, u)
}

// truncateMessage cuts s to at most n bytes at a rune boundary, marking the cut.
func truncateMessage(s string, n int) string { return truncate.Marked(s, n) }

// snippet quotes the start of an event's data for an error message.
func snippet(data []byte) string {
	const n = 120
	if s, cut := truncate.UTF8(string(data), n); cut {
		return fmt.Sprintf("%q…", s)
	}
	return fmt.Sprintf("%q", data)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
