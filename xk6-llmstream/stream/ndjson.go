package stream

import (
	"bytes"
	"io"
	"mime"
	"strings"
)

// ollama's native API streams newline-delimited JSON, one object a line,
// rather than server-sent events. The same Reader splits both (see
// NewNDJSONReader); these helpers decide which framing a body has.

// isNDJSON reports whether a Content-Type is newline-delimited JSON
// (application/x-ndjson, as ollama sends, or one of its aliases).
func isNDJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	switch strings.ToLower(mt) {
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines", "application/jsonlines":
		return true
	}
	return false
}

// newBodyReader returns the Reader for a body of dialect d: NDJSON for ollama
// or when lines says so, server-sent events otherwise.
func newBodyReader(src io.Reader, maxLine int, lines bool) *Reader {
	if lines {
		return NewNDJSONReader(src, maxLine)
	}
	return NewReader(src, maxLine)
}

// sniffNDJSON reads r up to its first byte that is neither white space nor
// part of a BOM and reports whether that byte opens a JSON object: an event
// stream starts with a field name, a comment or a blank line, never with
// '{'. The returned reader yields every byte of r, the sniffed ones included,
// then r's own error.
func sniffNDJSON(r io.Reader) (io.Reader, bool) {
	const maxSniff = 64 << 10 // of white space, before giving up
	var head []byte
	var buf [initialBufSize]byte // as much as the Reader would read first
	for empty := 0; ; {
		n, err := r.Read(buf[:])
		head = append(head, buf[:n]...)
		partialBOM := len(head) < len(bom) && bytes.HasPrefix(bom, head)
		rest := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
		if len(rest) > 0 && !partialBOM {
			return &prefixReader{head: head, r: r, err: err}, rest[0] == '{'
		}
		if n == 0 {
			empty++
		}
		if err != nil || len(head) > maxSniff || empty > 100 {
			return &prefixReader{head: head, r: r, err: err}, false
		}
	}
}

// prefixReader replays head, then reads r (or returns err, when reading head
// already ended r).
type prefixReader struct {
	head []byte
	r    io.Reader
	err  error
}

func (p *prefixReader) Read(b []byte) (int, error) {
	if len(p.head) > 0 {
		n := copy(b, p.head)
		p.head = p.head[n:]
		return n, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	return p.r.Read(b)
}
