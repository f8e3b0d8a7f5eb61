package redact

import (
	"fmt"
	"net/url"
	"strings"
)

// URL is the one form in which a URL appears in a message or a log: its
// scheme, host and (escaped) path, and nothing else. User info, the query
// and the fragment never appear, since they may hold credentials; a path
// segment, or a part of one between separators such as ':' or '@', that
// looks like a key becomes Marker (see Path); key-shaped strings anywhere
// become Marker (KeyShapes). A relative reference ("/v1/other", as a
// redirect's Location may be) keeps its path. A value that does not parse
// as a URL, or that would show user info in its path, appears only as its
// length; an opaque one ("host:8000/v1", which lacks "http://") as its
// "scheme:" and "…".
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Host == "" && (u.User != nil || strings.Contains(u.Path, "@"))) {
		return fmt.Sprintf("(%d bytes that are not a URL)", len(raw))
	}
	if u.Opaque != "" {
		return KeyShapes(u.Scheme + ":…")
	}
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + ":")
	}
	if u.Host != "" {
		b.WriteString("//" + u.Host)
	}
	b.WriteString(Path(u.EscapedPath()))
	return KeyShapes(b.String())
}

// Path is a URL path as messages and logs show it: each segment that looks
// like a key or token (SecretSegment), and each such part of a segment
// between characters that are not key characters (':', '@', '.', '=', ...),
// replaced by Marker, and key-shaped strings replaced by Marker.
func Path(path string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if SecretSegment(seg) {
			segs[i] = Marker
			continue
		}
		parts := strings.FieldsFunc(seg, func(c rune) bool { return !keyChar(c) })
		for _, p := range parts {
			if SecretSegment(p) {
				seg = strings.ReplaceAll(seg, p, Marker)
			}
		}
		segs[i] = seg
	}
	return KeyShapes(strings.Join(segs, "/"))
}

// SecretSegment reports whether a string looks like a key or token: 16 or
// more key characters (letters, digits, '-', '_' or percent escapes), with
// both letters and digits. API paths and model names hold dots, colons or no
// digits, or are shorter.
func SecretSegment(seg string) bool {
	if len(seg) < 16 {
		return false
	}
	letter, digit := false, false
	for _, c := range seg {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c == '-' || c == '_' || c == '%':
		default:
			return false
		}
	}
	return letter && digit
}

func keyChar(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '%'
}
