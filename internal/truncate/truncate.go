// Package truncate cuts strings to a byte budget without splitting a UTF-8
// character: the one truncation rule of the k6 side (engine messages, the
// helper's returned text).
package truncate

import "unicode/utf8"

// Ellipsis marks a cut made by Marked.
const Ellipsis = "…"

// UTF8 cuts s to at most max bytes at a character boundary and reports
// whether it cut. A max of 0 or less means no limit.
func UTF8(s string, max int) (string, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// Marked cuts s to at most max bytes, Ellipsis included, at a character
// boundary, ending a cut string with Ellipsis. max must leave room for
// Ellipsis.
func Marked(s string, max int) string {
	if len(s) <= max {
		return s
	}
	t, _ := UTF8(s, max-len(Ellipsis))
	return t + Ellipsis
}
