// Package input opens what the readers read — a k6 JSON output, a records
// file, a history file — from a path or stdin ("-"), gzip or not.
package input

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// Open opens an input: a file path, or "-" for stdin. Gzip data is
// recognised by its magic bytes (whatever the name), as k6 writes it for a
// --out json=….gz path and the helper for a records .gz. Closing the result
// does not close stdin.
func Open(path string, stdin io.Reader) (io.ReadCloser, error) {
	var (
		r      io.Reader
		closer io.Closer
	)
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory, not a file", path)
		}
		r, closer = f, f
	}
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		closeQuiet(closer)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			closeQuiet(closer)
			return nil, fmt.Errorf("%s: bad gzip header: %w", path, err)
		}
		return &readCloser{Reader: zr, closers: []io.Closer{zr, closer}}, nil
	}
	return &readCloser{Reader: br, closers: []io.Closer{closer}}, nil
}

type readCloser struct {
	io.Reader
	closers []io.Closer
}

func (r *readCloser) Close() error {
	var first error
	for _, c := range r.closers {
		if c == nil {
			continue
		}
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func closeQuiet(c io.Closer) {
	if c != nil {
		c.Close()
	}
}
