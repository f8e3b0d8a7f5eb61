package redact

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRedactsRequestSecrets(t *testing.T) {
	t.Parallel()
	const key = "gw-0123456789abcdef"
	h := http.Header{
		"Authorization":     {"Bearer " + key},
		"X-Custom":          {"custom secret value"},
		"Anthropic-Version": {"2023-06-01"},
		"Content-Type":      {"application/json"},
		"X-Short":           {"1234567"},
	}
	u, err := url.Parse("http://alice-the-user:p4ssw0rd-long@127.0.0.1:9/v1?key=query-secret-1&n=3")
	if err != nil {
		t.Fatal(err)
	}
	r := New(h, u)
	for in, want := range map[string]string{
		"invalid key Bearer " + key:             "invalid key " + Marker,
		"you said " + key + "!":                 "you said " + Marker + "!",
		"X-Custom was custom secret value":      "X-Custom was " + Marker,
		"parts: secret value":                   "parts: " + Marker,
		"url alice-the-user:p4ssw0rd-long here": "url " + Marker + " here",
		"user alice-the-user":                   "user " + Marker,
		"key=query-secret-1&n=3":                "key=" + Marker + "&n=3",
		"version 2023-06-01, application/json":  "version 2023-06-01, application/json",
		"short 1234567 stays":                   "short 1234567 stays",
		"body cut at gw-0123456":                "body cut at " + Marker,
		"body cut at gw-0123":                   "body cut at gw-0123",
		"":                                      "",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeyShapes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"key sk-abcdefgh1234 bad":         "key " + Marker + " bad",
		"sk-ant-api03-xyzXYZ_12345678":    Marker,
		"task-abcdefghijkl stays":         "task-abcdefghijkl stays",
		"x-sk-abcdefghijkl":               "x-" + Marker,
		"sk-short":                        "sk-short",
		"a sk- b":                         "a sk- b",
		"x:sk-1234567890,y:sk-0987654321": "x:" + Marker + ",y:" + Marker,
	} {
		if got := KeyShapes(in); got != want {
			t.Errorf("KeyShapes(%q) = %q, want %q", in, got, want)
		}
		if got := (*Redactor)(nil).String(in); got != want {
			t.Errorf("nil Redactor: String(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRedactor: whatever the headers, no header value of MinSecret bytes or
// more (harmless headers aside) survives String.
func FuzzRedactor(f *testing.F) {
	f.Add("Bearer sk-0123456789", "x", "y")
	f.Add("a  b   cdefghijkl", "Content-Type", "application/json")
	f.Fuzz(func(t *testing.T, auth, name, value string) {
		h := http.Header{"Authorization": {auth}}
		h.Add(name, value)
		r := New(h, nil)
		for hn, vs := range h {
			if Harmless(http.CanonicalHeaderKey(hn)) {
				continue
			}
			for _, v := range vs {
				v = strings.TrimSpace(v)
				if strings.Contains(v, "REDACTED") {
					continue // the marker itself
				}
				if len(v) >= MinSecret && strings.Contains(r.String("<"+v+">"), v) {
					t.Fatalf("%s value %q survives: %q", hn, v, r.String("<"+v+">"))
				}
			}
		}
	})
}

func TestKeyShapesOfOtherProviders(t *testing.T) {
	t.Parallel()
	google := "AIza" + strings.Repeat("Sy_-9", 7) // 39 characters, as Google's API keys
	groq := "gsk_" + strings.Repeat("aB3", 17) + "x"
	for in, want := range map[string]string{
		"?key=" + google + "&alt=sse":            "?key=" + Marker + "&alt=sse",
		"x-goog-api-key: " + google:              "x-goog-api-key: " + Marker,
		"AIza" + strings.Repeat("a", 34) + " ok": "AIza" + strings.Repeat("a", 34) + " ok", // too short for a Google key
		"AIzawesome stays":                       "AIzawesome stays",
		"Bearer " + groq:                         "Bearer " + Marker,
		"key xai-" + strings.Repeat("Q7", 20):    "key " + Marker,
		"hf_" + strings.Repeat("abc1", 8):        Marker,
		"hf_short gsk_short xai-short":           "hf_short gsk_short xai-short",
	} {
		if got := KeyShapes(in); got != want {
			t.Errorf("KeyShapes(%q) = %q, want %q", in, got, want)
		}
	}
}

// Query values are redacted however they are encoded in a message (issue 11,
// item 4): Go's errors quote the URL as written, so "%2B", "%2b" and "+" forms
// of a key went through before.
func TestRedactsEncodedSecrets(t *testing.T) {
	t.Parallel()
	const key = "k3y+with/slash=and space"
	raw := "http://user:" + url.PathEscape(key) + "@h/v1?key=" + url.QueryEscape(key) + "&api-key=k3y%2bwith%2fslash%3dand%20space"
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	r := New(http.Header{"X-Goog-Api-Key": {key}}, u)
	for _, form := range []string{
		key, url.QueryEscape(key), url.PathEscape(key), "k3y%2bwith%2fslash%3dand%20space",
		strings.ReplaceAll(url.QueryEscape(key), "+", "%20"),
		base64.StdEncoding.EncodeToString([]byte("user:" + key)),
	} {
		msg := `Post "` + raw + `": failed; also ` + form + ` here`
		if got := r.String(msg); strings.Contains(got, form) || strings.Contains(got, "slash") {
			t.Errorf("form %q survives: %s", form, got)
		}
	}
	// Only the header's key known: its encoded forms in a URL are found too.
	h := New(http.Header{"Authorization": {"Bearer " + key}}, nil)
	if got := h.String("GET /v1?key=" + url.QueryEscape(key)); strings.Contains(got, "slash") {
		t.Errorf("query-escaped header key survives: %s", got)
	}
}
