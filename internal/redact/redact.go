// Package redact removes the secrets of one request from the strings the k6
// side hands back: the engine's error messages and the helper's answers (model,
// finish reason, text). It is the one redaction rule of the project: the
// engine and the helper both use it, with one marker.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Marker replaces every secret.
const Marker = "[REDACTED]"

// MinSecret is the length from which a header value, a word of one, or a URL
// part is a secret. Shorter values cannot be API keys, and replacing them
// would mangle text.
const MinSecret = 8

// harmless are headers whose values are not secrets and may legitimately
// appear in an answer (e.g. "application/json", "2023-06-01"). Key-shaped
// strings are removed from them all the same.
var harmless = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Accept-Language": true,
	"Content-Type": true, "User-Agent": true, "Anthropic-Version": true,
	"Anthropic-Beta": true, "Cache-Control": true,
}

// Harmless reports whether the values of the header named name (canonical
// form) are kept.
func Harmless(name string) bool { return harmless[name] }

// keyLike matches strings shaped like API keys that start a word: OpenAI
// "sk-…" and "sk-proj-…", Anthropic "sk-ant-…", OpenRouter "sk-or-…",
// DeepSeek and many gateways (8 or more key characters after "sk-"); Google
// API keys (Gemini, Vertex AI express): "AIza" and 35 more characters;
// Groq "gsk_…" (52 alphanumerics), xAI "xai-…" and Hugging Face "hf_…"
// tokens (20 or more key characters after the prefix).
var keyLike = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_\-]{8,}|AIza[A-Za-z0-9_\-]{35,}|gsk_[A-Za-z0-9]{20,}|xai-[A-Za-z0-9]{20,}|hf_[A-Za-z0-9]{20,})`)

// keyPrefixes are the beginnings keyLike looks for (a fast path).
var keyPrefixes = []string{"sk-", "AIza", "gsk_", "xai-", "hf_"}

// Redactor removes the secrets of one request. The nil Redactor removes only
// key-shaped strings.
type Redactor struct {
	secrets []string // longest first, so a whole value goes before its parts
}

// New collects the secrets of a request: every value of its headers except
// the harmless ones, and each word of such a value and what follows its first
// space (the key after "Bearer"), and for a Basic value ("Basic base64") the
// decoded "user:password", user and password; the URL's user info, user name
// and password, and the base64 (standard, URL-safe, padded or not) of
// "user:password", "user:" and "user" — the HTTP Basic credentials Go's
// client makes from them, with an empty password for a user name alone; and
// the values of its query, decoded and as written in the URL. Each secret is
// also removed in its percent-encoded forms (query and path escaping, so "+"
// and "%2B" forms alike) and its JSON-escaped forms (see addJSON). u may be
// nil.
func New(h http.Header, u *url.URL) *Redactor {
	r := &Redactor{}
	for name, values := range h {
		if harmless[http.CanonicalHeaderKey(name)] {
			continue
		}
		for _, v := range values {
			r.add(v)
			if scheme, rest, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				r.add(rest)
				if strings.EqualFold(scheme, "Basic") {
					r.addBasic(strings.TrimSpace(rest))
				}
			}
			for _, f := range strings.Fields(v) {
				r.add(f)
			}
		}
	}
	if u != nil {
		r.addURL(u)
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// addURL collects the secrets of a URL: its user info and query values.
func (r *Redactor) addURL(u *url.URL) {
	if u.User != nil {
		r.add(u.User.String())
		user := u.User.Username()
		r.add(user)
		// Go's client sends the user info as HTTP Basic credentials,
		// base64("user:password"), the password empty when there is none:
		// base64("user:") for a key given as the user name alone.
		p, _ := u.User.Password()
		r.add(p)
		r.addBase64(user + ":" + p)
		r.addBase64(user)
		r.addBase64(user + ":")
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			r.add(v)
		}
	}
	// As written: "a%2bb" stays "a%2bb" in messages that quote the URL.
	for _, kv := range strings.FieldsFunc(u.RawQuery, func(c rune) bool { return c == '&' || c == ';' }) {
		if _, v, ok := strings.Cut(kv, "="); ok {
			r.addOne(v)
		}
	}
}

// addBasic collects the credentials of an HTTP Basic header value (its
// base64 part): "user:password", the user and the password, decoded, as a
// server may echo them.
func (r *Redactor) addBasic(creds string) {
	for _, enc := range base64Encodings {
		b, err := enc.DecodeString(creds)
		if err != nil {
			continue
		}
		s := string(b)
		r.add(s)
		if user, pass, ok := strings.Cut(s, ":"); ok {
			r.add(user)
			r.add(pass)
		}
		return
	}
}

// base64Encodings are the four base64 alphabets and paddings.
var base64Encodings = []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding}

// addBase64 collects the base64 forms of s (when s itself is long enough to
// be a secret: "user:" with a short user is not).
func (r *Redactor) addBase64(s string) {
	if len(strings.TrimSuffix(s, ":")) < MinSecret {
		return
	}
	for _, enc := range base64Encodings {
		r.addOne(enc.EncodeToString([]byte(s)))
	}
}

// add collects s and its percent-encoded and JSON-escaped forms.
func (r *Redactor) add(s string) {
	s = strings.TrimSpace(s)
	if len(s) < MinSecret {
		return
	}
	r.addOne(s)
	if q := url.QueryEscape(s); q != s {
		r.addOne(q)
		r.addOne(strings.ReplaceAll(q, "+", "%20"))
	}
	if p := url.PathEscape(s); p != s {
		r.addOne(p)
	}
	r.addJSON(s)
}

// addJSON collects the ways JSON writers escape s inside a string, as a
// server echoing it in a JSON body writes it: Go's encoding/json (with its
// \u003c, \u003e, \u0026 HTML escapes, and without them), every non-ASCII
// character as \uXXXX (JavaScript's and Python's ASCII-only output), and
// each of these with "/" written "\/".
func (r *Redactor) addJSON(s string) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	forms := make([]string, 0, 3)
	for _, html := range []bool{true, false} {
		b.Reset()
		enc.SetEscapeHTML(html)
		if enc.Encode(s) != nil {
			return
		}
		q := strings.TrimSuffix(b.String(), "\n")
		forms = append(forms, q[1:len(q)-1])
	}
	forms = append(forms, asciiJSON(forms[0]))
	for _, f := range forms {
		if f != s {
			r.addOne(f)
		}
		if e := strings.ReplaceAll(f, "/", `\/`); e != f {
			r.addOne(e)
		}
	}
}

// asciiJSON writes each non-ASCII character of an escaped JSON string as
// \uXXXX (a UTF-16 surrogate pair above U+FFFF), lower-case hex as Go
// writes its own escapes.
func asciiJSON(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c < utf8.RuneSelf {
			b.WriteRune(c)
			continue
		}
		units := utf16.Encode([]rune{c})
		for _, u := range units {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

func (r *Redactor) addOne(s string) {
	if len(s) >= MinSecret {
		r.secrets = append(r.secrets, s)
	}
}

// String returns s with every secret replaced by Marker, including a
// secret's beginning (of MinSecret bytes or more) left at the very end of s by
// an earlier cut, and every key-shaped string.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	if r != nil {
		for _, sec := range r.secrets {
			s = strings.ReplaceAll(s, sec, Marker)
			for k := len(sec) - 1; k >= MinSecret; k-- {
				if strings.HasSuffix(s, sec[:k]) {
					s = s[:len(s)-k] + Marker
					break
				}
			}
		}
	}
	return KeyShapes(s)
}

// KeyShapes replaces with Marker every word shaped like an API key (see
// keyLike): "sk-" and at least 8 key characters (letters, digits, '-' and
// '_'), a Google "AIza…" key, a Groq, xAI or Hugging Face token.
func KeyShapes(s string) string {
	for _, p := range keyPrefixes {
		if strings.Contains(s, p) {
			return keyLike.ReplaceAllLiteralString(s, Marker)
		}
	}
	return s
}
