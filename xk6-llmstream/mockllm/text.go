package mockllm

import (
	"encoding/json"
	"strings"
)

// fillerWords are the answer's tokens, one word each, in order, cycling. A few
// need JSON escaping (a quote, a newline, non-ASCII letters) so that clients'
// decoders are exercised on every stream.
var fillerWords = []string{
	"The", "mock", "model", "streams", "deterministic", "filler", "so", "every",
	"token", "is", "known", "in", "advance", "and", "a", "client", "can",
	"check", "what", "it", "read", "—", "naïve", "café", `"quoted"`, "text,",
	"a", "new", "line\n", "then", "more", "words.",
}

// fillerTokens holds the JSON-escaped form (without quotes) of every filler
// token as sent: the first token bare, the others with a leading space.
var fillerTokens = newTokens(fillerWords)

// FillerText returns the text of the first n filler tokens: what the mock
// answers (and what a reasoning phase thinks) in n tokens unless it echoes the
// prompt.
func FillerText(n int) string { return fillerTokens.text(n) }

// tokens is a cyclic token vocabulary: token i is word[i mod len], with a
// leading space unless i == 0.
type tokens struct {
	raw []string // the words
	esc [][]byte // JSON-escaped words, without quotes
}

func newTokens(words []string) *tokens {
	t := &tokens{raw: words, esc: make([][]byte, len(words))}
	for i, w := range words {
		b, err := json.Marshal(w)
		if err != nil { // a Go string always marshals
			panic(err)
		}
		t.esc[i] = b[1 : len(b)-1]
	}
	return t
}

// appendJSON appends tokens [from, from+n) as the body of a JSON string
// (escaped, without the quotes).
func (t *tokens) appendJSON(b []byte, from, n int) []byte {
	for i := from; i < from+n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, t.esc[i%len(t.esc)]...)
	}
	return b
}

// text returns the plain text of tokens [0, n).
func (t *tokens) text(n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(t.raw[i%len(t.raw)])
	}
	return sb.String()
}
