package helper

import (
	"net/http"
	"net/url"
	"strings"
)

// Redacted replaces a secret in any string the helper returns or logs.
const Redacted = "[REDACTED]"

// minSecretLen is the shortest header value (or part of one) treated as a secret.
// Shorter values cannot be API keys and redacting them would mangle text.
const minSecretLen = 8

// benignHeaders hold values that are not secrets and may legitimately appear in
// an answer (e.g. "application/json").
var benignHeaders = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Accept-Language": true,
	"Content-Type": true, "User-Agent": true, "Anthropic-Version": true,
	"Anthropic-Beta": true, "Cache-Control": true,
}

// redactor removes the secrets of one request — its header values, the user
// info and query values of its URL, and anything shaped like an "sk-" key —
// from strings before they leave the helper. It is the last line of defence: the
// engine already keeps header values out of its records.
type redactor struct {
	secrets []string
}

func newRedactor(h http.Header, u *url.URL) redactor {
	var r redactor
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) >= minSecretLen {
			r.secrets = append(r.secrets, s)
		}
	}
	for name, values := range h {
		if benignHeaders[name] {
			continue
		}
		for _, v := range values {
			add(v)
			// "Bearer <key>", "Basic <creds>": the parts may be echoed alone.
			for _, f := range strings.Fields(v) {
				add(f)
			}
		}
	}
	if u != nil {
		if u.User != nil {
			add(u.User.String())
			if p, ok := u.User.Password(); ok {
				add(p)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
	}
	// Longest first, so a whole value is replaced before its parts.
	for i := 1; i < len(r.secrets); i++ {
		for j := i; j > 0 && len(r.secrets[j]) > len(r.secrets[j-1]); j-- {
			r.secrets[j], r.secrets[j-1] = r.secrets[j-1], r.secrets[j]
		}
	}
	return r
}

// clean returns s with every secret replaced by Redacted.
func (r redactor) clean(s string) string {
	if s == "" {
		return s
	}
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, Redacted)
		}
	}
	return redactKeyShapes(s)
}

// redactKeyShapes replaces tokens that look like API keys ("sk-" followed by at
// least 8 key characters, as OpenAI, Anthropic and many gateways issue them).
func redactKeyShapes(s string) string {
	if !strings.Contains(s, "sk-") {
		return s
	}
	var b strings.Builder
	i, changed := 0, false
	for {
		j := strings.Index(s[i:], "sk-")
		if j < 0 {
			break
		}
		j += i
		end := j + 3
		for end < len(s) && isKeyChar(s[end]) {
			end++
		}
		// a key starts a token: not preceded by a key character
		if end-j-3 >= minSecretLen && (j == 0 || !isKeyChar(s[j-1])) {
			b.WriteString(s[i:j])
			b.WriteString(Redacted)
			changed = true
		} else {
			b.WriteString(s[i:end])
		}
		i = end
	}
	if !changed {
		return s
	}
	b.WriteString(s[i:])
	return b.String()
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}
