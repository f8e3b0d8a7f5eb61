package helper

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// echoAll answers 401 with a plain-text body that quotes the credential
// headers raw, each Basic credential decoded, and each value JSON-escaped
// (with and without HTML escapes): everything a careless server could say.
func echoAll(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	for _, name := range []string{"Authorization", "X-Api-Key"} { // the message is cut at 200 characters
		for _, v := range r.Header.Values(name) {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
			if scheme, creds, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "basic") {
				dec, _ := base64.StdEncoding.DecodeString(creds)
				fmt.Fprintf(&b, "decoded %s: %s\n", name, dec)
			}
			j, _ := json.Marshal(v)
			var nb strings.Builder
			enc := json.NewEncoder(&nb)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(v)
			fmt.Fprintf(&b, "json %s: %s %s", name, j, nb.String())
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprint(w, b.String())
}

// leakForms are the encodings of a secret that must appear in no artefact.
func leakForms(secret string) map[string]string {
	forms := map[string]string{"plain": secret}
	for _, s := range []string{secret, secret + ":"} {
		forms["base64 "+s] = base64.StdEncoding.EncodeToString([]byte(s))
		forms["base64url "+s] = base64.URLEncoding.EncodeToString([]byte(s))
		forms["raw base64 "+s] = base64.RawStdEncoding.EncodeToString([]byte(s))
	}
	j, _ := json.Marshal(secret)
	forms["json"] = string(j[1 : len(j)-1])
	forms["json no-html"] = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(forms["json"])
	forms["query-escaped"] = url.QueryEscape(secret)
	return forms
}

// Keys in the encodings the redaction used to miss — a key as the URL's
// user name alone (sent as base64 "key:"), a custom Basic header echoed
// decoded, a key with characters JSON escapes — appear in none of the
// artefacts: the answer, the records file, the helper's log.
func TestKeysInEveryEncodingLeakNowhere(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(echoAll))
	defer echo.Close()
	host := strings.TrimPrefix(echo.URL, "http://")
	const userKey = "sk-TESTKEY-abc123-user-only"
	const basicUser, basicPass = "gateway-user-42", "gw-pass<&>word-42"
	const jsonKey = `jk"with\back/slash<and>&amp-é-42`
	cases := []struct {
		name    string
		url     string
		headers map[string]string
		secrets []string
	}{
		{"user-only URL", "http://" + url.User(userKey).String() + "@" + host + "/v1/chat/completions", nil, []string{userKey}},
		{"custom Basic header", echo.URL + "/v1/chat/completions",
			map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(basicUser+":"+basicPass))},
			[]string{basicUser, basicPass, basicUser + ":" + basicPass}},
		{"JSON-escaped key", echo.URL + "/v1/chat/completions", map[string]string{"X-Api-Key": jsonKey}, []string{jsonKey}},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "records.jsonl")
		rw, err := OpenRecords(path, RecordsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var logs syncLog
		h := startHelper(t, WithRecords(rw), WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		_, a, raw := streamVia(t, h.URL(), map[string]any{
			"url": c.url, "api": "openai-chat", "headers": c.headers, "id": "1-1",
			"body": map[string]any{"model": "m", "messages": []any{}},
		})
		if a.Error == nil || a.Error.Kind != "http_401" || !strings.Contains(a.Error.Message, "REDACTED") {
			t.Fatalf("%s: want an http_401 quoting the redacted headers: %s", c.name, raw)
		}
		if err := h.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := CloseRecords(rw); err != nil {
			t.Fatal(err)
		}
		rec, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(rec), `"kind":"http_401"`) {
			t.Fatalf("%s: the records file has no record of the request:\n%s", c.name, rec)
		}
		for _, s := range c.secrets {
			for form, f := range leakForms(s) {
				for what, text := range map[string]string{"answer": raw, "records": string(rec), "log": logs.String()} {
					if strings.Contains(text, f) {
						t.Errorf("%s: the %s holds %q in its %s form %q", c.name, what, s, form, f)
					}
				}
			}
		}
	}
}

// A cross-host redirect (307 and 308) carries no credential to the other
// host: not Authorization, x-api-key, api-key, x-goog-api-key, Cookie,
// Proxy-Authorization, a custom secret header, nor a Referer carrying the
// first URL's query; a harmless header is still sent, and a same-host
// redirect keeps the credentials. Both servers are on 127.0.0.1: a
// different port is a different origin (RFC 6454: scheme, host and port),
// another server with its own keys, so for credentials it is another host.
func TestCrossHostRedirectCarriesNoCredentials(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]http.Header{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Clone()
		mu.Unlock()
		w.WriteHeader(http.StatusTeapot)
	}))
	defer other.Close()
	var first *httptest.Server
	first = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/307":
			http.Redirect(w, r, other.URL+"/cross307", http.StatusTemporaryRedirect)
		case "/v1/308":
			http.Redirect(w, r, other.URL+"/cross308", http.StatusPermanentRedirect)
		case "/v1/same":
			http.Redirect(w, r, first.URL+"/v1/landed", http.StatusTemporaryRedirect)
		default:
			mu.Lock()
			seen[r.URL.Path] = r.Header.Clone()
			mu.Unlock()
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	defer first.Close()
	secrets := map[string]string{
		"Authorization": "Bearer " + testKey, "X-Api-Key": "xak-0123456789", "Api-Key": "azure-0123456789",
		"X-Goog-Api-Key": "AIza-not-real-0123456789", "Cookie": "session=cookie-0123456789",
		"Proxy-Authorization": "Basic cHJveHktdXNlcjpwcm94eS1wYXNz", "X-Gateway-Secret": "gateway-0123456789",
	}
	headers := map[string]string{"Anthropic-Version": "2023-06-01"}
	for k, v := range secrets {
		headers[k] = v
	}
	h := startHelper(t)
	for _, path := range []string{"/v1/307", "/v1/308", "/v1/same"} {
		streamVia(t, h.URL(), map[string]any{
			"url": first.URL + path + "?key=query-secret-0123", "api": "openai-chat", "headers": headers,
			"body": map[string]any{"model": "m", "messages": []any{}},
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{"/cross307", "/cross308"} {
		got, ok := seen[path]
		if !ok {
			t.Fatalf("the redirect to %s was not followed", path)
		}
		for name := range secrets {
			if v := got.Get(name); v != "" {
				t.Errorf("%s: the other host received %s: %q", path, name, v)
			}
		}
		if v := got.Get("Referer"); v != "" {
			t.Errorf("%s: the other host received Referer %q", path, v)
		}
		if got.Get("Anthropic-Version") != "2023-06-01" || got.Get(HopHeader) == "" {
			t.Errorf("%s: the harmless and hop headers were not sent: %v", path, got)
		}
	}
	same, ok := seen["/v1/landed"]
	if !ok || same.Get("Authorization") != "Bearer "+testKey || same.Get("X-Api-Key") != secrets["X-Api-Key"] {
		t.Errorf("a same-host redirect lost the credentials: %v", same)
	}
}
