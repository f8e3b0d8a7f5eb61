package k6json

import (
	"bytes"
	"unicode/utf8"
)

// cursor reads JSON at a position in one line, for the fast path. Its methods
// return false ("ask the reference decoder") on anything they are not sure
// about; they never report an error.
type cursor struct {
	b []byte
	i int
}

// ws passes over white space. k6 writes none: the common case costs one
// comparison, inline.
func (c *cursor) ws() {
	if c.i < len(c.b) && c.b[c.i] <= ' ' {
		c.wsRun()
	}
}

func (c *cursor) wsRun() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\r', '\n':
			c.i++
		default:
			return
		}
	}
}

func (c *cursor) eat(ch byte) bool {
	if c.i < len(c.b) && c.b[c.i] == ch {
		c.i++
		return true
	}
	return false
}

// An object is read member by member:
//
//	ok := true
//	for more := c.open(); more; more, ok = c.next() {
//		key, kok := c.key() // then read or skip the value
//	}
//	// ok: the object was well formed up to its closing brace

// open reads the opening brace of an object, which the caller has seen at
// the cursor, and reports whether a member follows.
func (c *cursor) open() (more bool) {
	c.i++
	c.ws()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return false
	}
	return true
}

// isOpen reports whether an object begins at the cursor.
func (c *cursor) isOpen() bool { return c.i < len(c.b) && c.b[c.i] == '{' }

// next reads what follows a member's value: a comma (more: another member
// follows) or the closing brace.
func (c *cursor) next() (more, ok bool) {
	c.ws()
	if c.i < len(c.b) {
		switch c.b[c.i] {
		case ',':
			c.i++
			return true, true
		case '}':
			c.i++
			return false, true
		}
	}
	return false, false
}

// key reads a member's key — a plain string (see str) — and its colon, and
// leaves the cursor at the value.
func (c *cursor) key() ([]byte, bool) {
	c.ws()
	k, ok := c.str()
	if !ok || !c.colon() {
		return nil, false
	}
	return k, true
}

// colon reads the colon between a key and its value, with the white space
// around it.
func (c *cursor) colon() bool {
	c.ws()
	if c.i >= len(c.b) || c.b[c.i] != ':' {
		return false
	}
	c.i++
	c.ws()
	return true
}

// str reads a JSON string that has no escapes, no control characters and valid
// UTF-8, and returns its content (aliasing the line).
func (c *cursor) str() ([]byte, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false
	}
	start := c.i + 1
	n := bytes.IndexByte(c.b[start:], '"')
	if n < 0 {
		return nil, false
	}
	s := c.b[start : start+n]
	ascii := true
	for _, ch := range s {
		if ch < 0x20 || ch == '\\' {
			return nil, false
		}
		if ch >= 0x80 {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(s) {
		return nil, false
	}
	c.i = start + n + 1
	return s, true
}

// number reads a JSON number (RFC 8259 grammar) and returns its text.
func (c *cursor) number() ([]byte, bool) {
	b, i := c.b, c.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		if i = digitRun(b, i+1); i < 0 {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digitRun(b, i); i < 0 {
			return nil, false
		}
	}
	c.i = i
	return b[start:i], true
}

// digitRun returns the end of the run of digits at b[i:], or -1 when there
// is none.
func digitRun(b []byte, i int) int {
	d := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == d {
		return -1
	}
	return i
}

// maxSkipDepth bounds the nesting the fast path skips over; deeper values go to
// encoding/json.
const maxSkipDepth = 64

// skip passes over any JSON value, checking that it is well formed.
func (c *cursor) skip(depth int) bool {
	if c.i >= len(c.b) || depth > maxSkipDepth {
		return false
	}
	switch ch := c.b[c.i]; {
	case ch == '"':
		return c.skipString()
	case ch == '{':
		ok := true
		for more := c.open(); more; more, ok = c.next() {
			c.ws()
			if !c.skipString() || !c.colon() || !c.skip(depth+1) {
				return false
			}
		}
		return ok
	case ch == '[':
		return c.skipArray(depth)
	case ch == 't':
		return c.lit("true")
	case ch == 'f':
		return c.lit("false")
	case ch == 'n':
		return c.lit("null")
	default:
		_, ok := c.number()
		return ok
	}
}

// skipArray passes over an array, checking that it is well formed.
func (c *cursor) skipArray(depth int) bool {
	c.i++
	c.ws()
	if c.eat(']') {
		return true
	}
	for {
		c.ws()
		if !c.skip(depth + 1) {
			return false
		}
		c.ws()
		if c.eat(']') {
			return true
		}
		if !c.eat(',') {
			return false
		}
	}
}

func (c *cursor) lit(s string) bool {
	if len(c.b)-c.i >= len(s) && string(c.b[c.i:c.i+len(s)]) == s {
		c.i += len(s)
		return true
	}
	return false
}

// skipString passes over a JSON string, escapes included (their content is not
// needed, only their validity). Invalid UTF-8 is accepted, as encoding/json does.
func (c *cursor) skipString() bool {
	if !c.eat('"') {
		return false
	}
	for c.i < len(c.b) {
		ch := c.b[c.i]
		switch {
		case ch == '"':
			c.i++
			return true
		case ch < 0x20:
			return false
		case ch == '\\':
			if !c.skipEscape() {
				return false
			}
		default:
			c.i++
		}
	}
	return false
}

// skipEscape passes over one escape sequence in a string.
func (c *cursor) skipEscape() bool {
	if c.i+1 >= len(c.b) {
		return false
	}
	switch c.b[c.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		c.i += 2
		return true
	case 'u':
		if c.i+6 > len(c.b) {
			return false
		}
		for _, h := range c.b[c.i+2 : c.i+6] {
			if !isHex(h) {
				return false
			}
		}
		c.i += 6
		return true
	}
	return false
}

func isHex(h byte) bool {
	return h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F'
}
