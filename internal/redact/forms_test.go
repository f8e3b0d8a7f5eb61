package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// b64Forms are the four base64 encodings of s.
func b64Forms(s string) map[string]string {
	return map[string]string{
		"std": base64.StdEncoding.EncodeToString([]byte(s)), "url": base64.URLEncoding.EncodeToString([]byte(s)),
		"raw-std": base64.RawStdEncoding.EncodeToString([]byte(s)), "raw-url": base64.RawURLEncoding.EncodeToString([]byte(s)),
	}
}

// assertGone checks that each form, embedded in a message, is redacted.
func assertGone(t *testing.T, r *Redactor, what string, forms map[string]string) {
	t.Helper()
	for name, f := range forms {
		if got := r.String("the server said [" + f + "] back"); strings.Contains(got, f) {
			t.Errorf("%s, %s form %q survives: %q", what, name, f, got)
		}
	}
}

// A key as the URL's user name alone is sent as HTTP Basic of "key:" (the
// password empty): every base64 form of "key:" and "key" is a secret, as are
// those of "user:password" when there is a password.
func TestRedactsUserOnlyURLBasicForms(t *testing.T) {
	t.Parallel()
	const key = "sk?TESTKEY-abc123~x>y"
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:9", Path: "/v1", User: url.User(key)}
	r := New(nil, u)
	// What Go's client sends for this URL.
	req, err := http.NewRequest(http.MethodPost, u.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := req.URL.User.Password()
	req.SetBasicAuth(req.URL.User.Username(), p)
	sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
	assertGone(t, r, "user-only URL", map[string]string{"sent": sent})
	assertGone(t, r, "base64(key:)", b64Forms(key+":"))
	assertGone(t, r, "base64(key)", b64Forms(key))

	r = New(nil, &url.URL{Scheme: "http", Host: "127.0.0.1:9", User: url.UserPassword("alice-user", "p4ss>w0rd?long")})
	assertGone(t, r, "base64(user:password)", b64Forms("alice-user:p4ss>w0rd?long"))
}

// A custom "Authorization: Basic …" header: the user and password it
// carries, decoded, are secrets (a server may echo them decoded).
func TestRedactsDecodedBasicHeader(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"Basic", "basic", "BASIC"} {
		creds := base64.StdEncoding.EncodeToString([]byte("gateway-user:gw-password-123"))
		r := New(http.Header{"Authorization": {scheme + " " + creds}}, nil)
		assertGone(t, r, scheme, map[string]string{
			"user:password": "gateway-user:gw-password-123", "user": "gateway-user", "password": "gw-password-123",
		})
	}
	// Proxy-Authorization and a header with another name carry Basic too.
	creds := base64.StdEncoding.EncodeToString([]byte("proxy-user-1:proxy-pass-1"))
	r := New(http.Header{"Proxy-Authorization": {"Basic " + creds}}, nil)
	assertGone(t, r, "Proxy-Authorization", map[string]string{"user": "proxy-user-1", "password": "proxy-pass-1"})
}

// jsonForms are the ways JSON writers escape s in a string.
func jsonForms(s string) map[string]string {
	j, _ := json.Marshal(s)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	noHTML := strings.TrimSpace(b.String())
	ascii := strings.Builder{}
	for _, c := range string(j[1 : len(j)-1]) {
		if c < 0x80 {
			ascii.WriteRune(c)
			continue
		}
		for _, u := range utf16Units(c) {
			ascii.WriteString(`\u` + hex4(u))
		}
	}
	return map[string]string{
		"go":          string(j[1 : len(j)-1]),
		"go no-html":  noHTML[1 : len(noHTML)-1],
		"ascii-only":  ascii.String(),
		"escaped '/'": strings.ReplaceAll(string(j[1:len(j)-1]), "/", `\/`),
	}
}

func utf16Units(c rune) []uint16 {
	if c < 0x10000 {
		return []uint16{uint16(c)}
	}
	c -= 0x10000
	return []uint16{uint16(0xd800 + c>>10), uint16(0xdc00 + c&0x3ff)}
}

func hex4(u uint16) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[u>>12], digits[u>>8&15], digits[u>>4&15], digits[u&15]})
}

// A header value's JSON-escaped forms are secrets: a key holding '"', '\',
// '/', '<', '&' or non-ASCII, echoed by a server in a JSON string.
func TestRedactsJSONEscapedForms(t *testing.T) {
	t.Parallel()
	for _, key := range []string{`key"with\quote/and<tag>&amp-01`, "kéy-ünïcode-😀-0123", "k\u2028line-sep-0123\x01"} {
		r := New(http.Header{"X-Api-Key": {key}}, nil)
		forms := jsonForms(key)
		if forms["go"] == key && forms["ascii-only"] == key {
			t.Fatalf("%q: the test key needs escaping", key)
		}
		assertGone(t, r, key, forms)
	}
}
