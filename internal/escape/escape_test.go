package escape

import "testing"

func TestLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"plain text, é 日本", "plain text, é 日本"},
		{"a\nb\r\tc", `a\nb\r\tc`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b2J", `c1 \x9b2J`},
		{"raw \x9b2J", `raw \x9b2J`}, // an 8-bit CSI byte, not UTF-8
		{"\ufffd stays", "\ufffd stays"},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
