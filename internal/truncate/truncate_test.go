package truncate

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestUTF8(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		max  int
		want string
		cut  bool
	}{
		{"hello", 10, "hello", false},
		{"hello", 5, "hello", false},
		{"hello", 4, "hell", true},
		{"hello", 0, "hello", false},
		{"hello", -1, "hello", false},
		{"héllo", 2, "h", true},  // é is 2 bytes: not split
		{"héllo", 3, "hé", true}, // cut after é
		{"日本", 4, "日", true},
		{"日本", 2, "", true},
		{"a\xffb", 2, "a\xff", true}, // invalid bytes are single characters
	} {
		got, cut := UTF8(tc.s, tc.max)
		if got != tc.want || cut != tc.cut {
			t.Errorf("UTF8(%q, %d) = %q, %v; want %q, %v", tc.s, tc.max, got, cut, tc.want, tc.cut)
		}
	}
}

func TestMarked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven " + Ellipsis},
		{"ab日本語", 8, "ab日" + Ellipsis}, // 8−3 bytes: "ab日", not "ab日\xe6"
		{"ab日本語", 7, "ab" + Ellipsis},
	} {
		if got := Marked(tc.s, tc.max); got != tc.want || len(got) > tc.max {
			t.Errorf("Marked(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

// FuzzUTF8: the result is a prefix within budget, valid UTF-8 when s is, and
// cut exactly when s is longer than the budget.
func FuzzUTF8(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Add("日本語", 5)
	f.Fuzz(func(t *testing.T, s string, max int) {
		got, cut := UTF8(s, max)
		if !strings.HasPrefix(s, got) || (max > 0 && len(got) > max) || cut != (max > 0 && len(s) > max) {
			t.Fatalf("UTF8(%q, %d) = %q, %v", s, max, got, cut)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("UTF8(%q, %d) = %q splits a character", s, max, got)
		}
		if cut && utf8.ValidString(s) && max-len(got) >= utf8.UTFMax {
			t.Fatalf("UTF8(%q, %d) = %q cuts more than a character early", s, max, got)
		}
	})
}
