// Package redact removes the secrets of one request from the strings the k6
// side hands back: the engine's error messages and the helper's answers (model,
// finish reason, text). It is the one redaction rule of the project: the
// engine and the helper both use it, with one marker.
package redact

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
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
// space (the key after "Bearer"); the URL's user info, user name and password
// (and the base64 "user:password" of the Basic credentials made from them);
// and the values of its query, decoded and as written in the URL. Each secret
// is also removed in its percent-encoded forms (query and path escaping, so
// "+" and "%2B" forms alike). u may be nil.
func New(h http.Header, u *url.URL) *Redactor {
	r := &Redactor{}
	for name, values := range h {
		if harmless[http.CanonicalHeaderKey(name)] {
			continue
		}
		for _, v := range values {
			r.add(v)
			if _, rest, ok := strings.Cut(v, " "); ok {
				r.add(rest)
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
		r.add(u.User.Username())
		if p, ok := u.User.Password(); ok {
			r.add(p)
			r.add(base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + p)))
		}
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

// add collects s and its percent-encoded forms.
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
