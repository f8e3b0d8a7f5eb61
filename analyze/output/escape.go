package output

import (
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/escape"
)

// What the writers print comes partly from their input: metric names, tag
// values (group labels), check expressions, file paths, history labels. The
// text writer shows each such string on one line (plainText); the Markdown
// writer shows it as the text it is, so that a viewer renders no HTML, link,
// table cell or line break that the input put there (mdText, mdCode).

// plainText makes s one line of plain text: escape.Line, the one rule for
// text from outside on a terminal (each control character, a newline, a
// tab, an ESC that a terminal would obey, written as an escape: \n, \r,
// \t, \x1b).
func plainText(s string) string { return escape.Line(s) }

// escaper is the escape of input strings for a format: mdText for
// Markdown, plainText for text.
func escaper(md bool) func(string) string {
	if md {
		return mdText
	}
	return plainText
}

// mdText escapes s for Markdown text, a table cell included: control
// characters are first escaped as plainText escapes them (a newline would
// end a table row); then a backslash (those escapes' included, so that a
// viewer shows \n) and | are backslash-escaped; < before what could start
// HTML or an autolink (a letter, /, ! or ?) and & before what could start
// a character reference (a letter or #) become &lt; and &amp;; a > that
// would start a block quote becomes \>. A < or & elsewhere
// ("p(99)<2000") is left as it is: a viewer shows it as it is.
func mdText(s string) string {
	s = plainText(s)
	if !strings.ContainsAny(s, `\|<&>`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		var next byte
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case c == '\\' || c == '|':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '<' && (isLetter(next) || next == '/' || next == '!' || next == '?'):
			b.WriteString("&lt;")
		case c == '&' && (isLetter(next) || next == '#'):
			b.WriteString("&amp;")
		case c == '>' && strings.TrimSpace(s[:i]) == "":
			b.WriteString(`\>`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// mdCode writes s as a Markdown code span: fenced by more backticks than
// any run in s, padded with a space when s starts or ends with a backtick;
// control characters are escaped as plainText escapes them; in a table
// cell (cell) | is escaped, which GitHub's tables require even in code.
func mdCode(s string, cell bool) string {
	s = plainText(s)
	if cell {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
