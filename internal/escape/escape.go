// Package escape is the one rule by which text from outside (an upstream's
// error message, a tag value, a file path) is shown on a terminal or in a
// plain-text report: on one line, with every control character written as
// an escape, so that no ANSI CSI or OSC sequence, carriage return, bell or
// other C0/C1 control reaches the terminal raw. (The helper's logs are
// quoted by log/slog and inspect's output is JSON; both escape controls in
// their own syntax.)
package escape

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line makes s one line of plain text: each control character is written
// as an escape (\n, \r, \t, else \xNN: ESC is \x1b, BEL \x07, CSI \x9b),
// and so is each byte that is not UTF-8 (a raw 8-bit CSI, 0x9b, too).
func Line(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, IsControl) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// IsControl reports whether r is a C0 or C1 control character, or DEL.
func IsControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
