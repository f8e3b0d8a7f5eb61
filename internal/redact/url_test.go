package redact

import (
	"strings"
	"testing"
)

// TestURL holds the cases of the copies the rule replaced: the helper's
// quoteURL, safeURL and logURL, the runner's redactURL and the engine's
// redactURL.
func TestURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"http://127.0.0.1:9/v1":                                                 "http://127.0.0.1:9/v1",
		"http://127.0.0.1:9/v1?key=helper-query-secret":                         "http://127.0.0.1:9/v1",
		"https://alice:p4ssw0rd-long@api.example/v1/chat#frag":                  "https://api.example/v1/chat",
		"http://[::1]:8000/v1/chat/completions?api-key=a%2Bb":                   "http://[::1]:8000/v1/chat/completions",
		"https://gw.example/keys/abc123def456ghi789/v1":                         "https://gw.example/keys/" + Marker + "/v1",
		"https://gw.example/v1beta/models/gemini-1.5-pro:streamGenerateContent": "https://gw.example/v1beta/models/gemini-1.5-pro:streamGenerateContent",
		"https://gw.example/m/name:abc123def456ghi789@x/v1":                     "https://gw.example/m/name:" + Marker + "@x/v1",
		"https://gw.example/sk-abcdefgh12/v1":                                   "https://gw.example/" + Marker + "/v1",
		"http://127.0.0.1:9":                                                    "http://127.0.0.1:9",
		"/elsewhere":                                                            "/elsewhere",
		"/elsewhere?token=abc123def456":                                         "/elsewhere",
		"a%20b/c d":                                                             "a%20b/c%20d",
		"http:s3cretKEY0123456789":                                              "http:…",
		"localhost:8000/v1":                                                     "localhost:…",
		"http://user:s3cretKEY0123456789@[::1/v1":                               "(39 bytes that are not a URL)",
		"http//user:s3cretKEY0123456789@127.0.0.1/v1":                           "(43 bytes that are not a URL)",
		"127.0.0.1:8000/s3cretKEY0123456789":                                    "(34 bytes that are not a URL)",
		"http://user:s3cretKEY0123456789@127.0.0.1:8000/v1\x7f":                 "(50 bytes that are not a URL)",
		"": "",
	} {
		if got := URL(raw); got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// No credential of a URL survives, whatever its shape.
func TestURLNeverShowsCredentials(t *testing.T) {
	t.Parallel()
	const secret = "s3cretKEY0123456789"
	for _, raw := range []string{
		"http://user:" + secret + "@[::1/v1",
		"http//user:" + secret + "@127.0.0.1/v1",
		"ftp://user:" + secret + "@127.0.0.1/v1",
		"ftp://" + secret + "@127.0.0.1/v1",
		"127.0.0.1:8000/" + secret,
		"http:" + secret,
		"http://user:" + secret + "@127.0.0.1:8000/v1\x7f",
		"http://127.0.0.1/v1?key=" + secret,
		"http://127.0.0.1/v1#" + secret,
		"http://127.0.0.1/" + secret + "/v1",
		"http://127.0.0.1/v1/x:" + secret,
		"/v1/" + secret,
		"v1@" + secret,
		"//user:" + secret + "@127.0.0.1/v1",
	} {
		if got := URL(raw); strings.Contains(got, secret) || strings.Contains(got, "s3cret") {
			t.Errorf("URL(%q) = %q shows the secret", raw, got)
		}
	}
}
