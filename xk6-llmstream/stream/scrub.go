package stream

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxMessage is the longest error message a Record carries (in bytes, cut at
// a rune boundary); server bodies quoted in messages are cut to fit.
const maxMessage = 300

// redacted replaces a secret in a message.
const redacted = "[redacted]"

// keyLike matches strings shaped like API keys (OpenAI "sk-…", Anthropic
// "sk-ant-…") wherever they come from.
var keyLike = regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{8,}`)

// minSecret is the length from which a header or URL query value is removed
// from messages. Every such value is removed, key or not, as a defence in
// depth; shorter values cannot be keys.
const minSecret = 8

// scrubber removes from messages every value the request carried in its
// headers and URL query, and anything shaped like an API key.
type scrubber struct {
	secrets []string
}

// newScrubber collects the secrets of one request.
func newScrubber(h http.Header, rawURL string) *scrubber {
	s := &scrubber{}
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= minSecret {
			s.secrets = append(s.secrets, v)
		}
	}
	for _, vs := range h {
		for _, v := range vs {
			add(v)
			// "Bearer <key>", "Basic <creds>": the credential alone, too.
			if i := strings.IndexByte(v, ' '); i >= 0 {
				add(v[i+1:])
			}
		}
	}
	if u, err := url.Parse(rawURL); err == nil {
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
		if u.User != nil {
			if p, ok := u.User.Password(); ok {
				add(p)
			}
			add(u.User.Username())
		}
	}
	return s
}

// scrub removes the secrets from msg, including a secret's beginning left at
// the very end of msg by an earlier cut.
func (s *scrubber) scrub(msg string) string {
	if s != nil {
		for _, sec := range s.secrets {
			msg = strings.ReplaceAll(msg, sec, redacted)
			for k := len(sec) - 1; k >= minSecret; k-- {
				if strings.HasSuffix(msg, sec[:k]) {
					msg = msg[:len(msg)-k] + redacted
					break
				}
			}
		}
	}
	return keyLike.ReplaceAllString(msg, "sk-"+redacted)
}

// truncate cuts s to at most n bytes at a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// snippet quotes the start of an event's data for an error message.
func snippet(data []byte) string {
	const n = 120
	if len(data) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(data[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", data[:cut])
	}
	return fmt.Sprintf("%q", data)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
