package workload

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Writer writes entries as JSONL, one object a line, HTML characters
// unescaped. Close flushes; its error must be checked.
type Writer struct {
	bw    *bufio.Writer
	enc   *json.Encoder
	n     int
	bytes int64
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer {
	cw := &Writer{}
	cw.bw = bufio.NewWriterSize(countingWriter{w, &cw.bytes}, 256<<10)
	cw.enc = json.NewEncoder(cw.bw)
	cw.enc.SetEscapeHTML(false)
	return cw
}

// Write writes one entry.
func (w *Writer) Write(e Entry) error {
	if e.V != Version {
		return fmt.Errorf("entry %s: version %d, want %d", e.ID, e.V, Version)
	}
	if err := w.enc.Encode(e); err != nil {
		return fmt.Errorf("writing entry %s: %w", e.ID, err)
	}
	w.n++
	return nil
}

// Entries is the number of entries written.
func (w *Writer) Entries() int { return w.n }

// Close flushes what is buffered.
func (w *Writer) Close() error { return w.bw.Flush() }

// Bytes is the number of bytes handed to the underlying writer.
func (w *Writer) Bytes() int64 { return w.bytes }

type countingWriter struct {
	w io.Writer
	n *int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}
