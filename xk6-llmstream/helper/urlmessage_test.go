package helper

import (
	"net/http"
	"strings"
	"testing"
)

// A "url" that does not parse shows no part of its user info in the
// refusal: the helper's former quoteURL printed everything before the '@'
// of such a URL, password included.
func TestBadURLNeverShowsUserinfo(t *testing.T) {
	t.Parallel()
	const secret = "s3cretKEY0123456789"
	h := startHelper(t, WithStreamer(okStreamer()))
	for _, raw := range []string{
		"http://user:" + secret + "@[::1/v1",
		"http//user:" + secret + "@127.0.0.1/v1",
		"ftp://user:" + secret + "@127.0.0.1/v1",
		"127.0.0.1:8000/" + secret,
		"http:" + secret,
	} {
		code, _, body := streamVia(t, h.URL(), map[string]any{"url": raw, "body": map[string]any{}})
		if code != http.StatusBadRequest || strings.Contains(body, secret) || !strings.Contains(body, `\"url\"`) {
			t.Errorf("url %q: %d %s, want 400 naming \"url\" without the secret", raw, code, body)
		}
	}
}
