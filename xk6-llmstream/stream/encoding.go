package stream

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
)

// contentError is a body that cannot be decoded as its Content-Encoding says
// (unsupported coding, corrupt compressed data): KindMalformed.
type contentError struct {
	coding string
	err    error
}

func (e *contentError) Error() string {
	return fmt.Sprintf("Content-Encoding %q: %v", e.coding, e.err)
}

func (e *contentError) Unwrap() error { return e.err }

// decodeContent returns a reader of the decoded body for a Content-Encoding:
// none or identity, gzip (x-gzip), and deflate — which HTTP defines as zlib
// data but some servers send as raw DEFLATE, so both are accepted. The
// engine's read times are taken below this layer, at the connection.
func decodeContent(coding string, body io.Reader) (io.Reader, error) {
	switch c := strings.ToLower(strings.TrimSpace(coding)); c {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if err == io.EOF {
			return strings.NewReader(""), nil // an empty body
		}
		if err != nil {
			return nil, wrapCoding(c, err)
		}
		return &codingReader{r: zr, coding: c}, nil
	case "deflate":
		var hdr [2]byte
		n, err := io.ReadFull(body, hdr[:])
		if err == io.EOF {
			return strings.NewReader(""), nil
		}
		if err != nil && err != io.ErrUnexpectedEOF {
			return nil, err
		}
		src := io.MultiReader(bytes.NewReader(hdr[:n]), body)
		if n == 2 && isZlibHeader(hdr) {
			zr, err := zlib.NewReader(src)
			if err != nil {
				return nil, wrapCoding(c, err)
			}
			return &codingReader{r: zr, coding: c}, nil
		}
		return &codingReader{r: flate.NewReader(src), coding: c}, nil
	default:
		return nil, &contentError{coding: coding, err: errors.New("not supported (the engine decodes gzip and deflate; do not ask for other codings in Accept-Encoding)")}
	}
}

// isZlibHeader reports whether two bytes start a zlib stream (RFC 1950):
// compression method 8 and a header checksum that divides by 31.
func isZlibHeader(h [2]byte) bool {
	return h[0]&0x0f == 8 && h[0]>>4 <= 7 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0
}

// codingReader turns corrupt-data errors of a decompressor into contentErrors;
// a cut-off stream (unexpected EOF) and connection errors pass through.
type codingReader struct {
	r      io.Reader
	coding string
}

func (c *codingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		err = wrapCoding(c.coding, err)
	}
	return n, err
}

func wrapCoding(coding string, err error) error {
	var ce flate.CorruptInputError
	if errors.As(err, &ce) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) ||
		errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrChecksum) || errors.Is(err, zlib.ErrDictionary) {
		return &contentError{coding: coding, err: err}
	}
	return err
}
