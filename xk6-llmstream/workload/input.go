package workload

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxEntryBytes bounds one entry of an input file: a ShareGPT conversation,
// a JSONL line or a CSV record. A longer one stops the build with an error
// naming its line and this limit; memory stays bounded by it.
var MaxEntryBytes int64 = 16 << 20

// inputError is a problem at a line of an input file.
type inputError struct {
	line int
	msg  string
}

func (e *inputError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// checkedReader passes an input file through: it drops a leading UTF-8 byte
// order mark, fails at the first invalid UTF-8 byte with its line, counts
// lines, and fails once more than limit bytes were read since the last mark
// (plus slack, for the reader's own look-ahead buffer).
type checkedReader struct {
	r     io.Reader
	limit int64
	slack int64

	off     int64 // bytes passed on
	mark    int64 // where the current entry began
	lines   int   // newlines passed on
	started bool
	carry   []byte // an incomplete UTF-8 sequence at the end of the last read
	err     error
}

func newCheckedReader(r io.Reader, limit int64) *checkedReader {
	return &checkedReader{r: r, limit: limit, slack: limit + 1<<20}
}

// Mark starts a new entry at offset off (of the bytes passed on).
func (c *checkedReader) Mark(off int64) { c.mark = off }

// Line is the 1-based line being read.
func (c *checkedReader) Line() int { return c.lines + 1 }

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.limit > 0 && c.off-c.mark > c.limit+c.slack {
		c.err = &inputError{c.Line(), tooLong(c.limit)}
		return 0, c.err
	}
	n, err := c.r.Read(p)
	b := p[:n]
	if !c.started && (n > 0 || err != nil) {
		c.started = true
		if bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
			copy(b, b[3:])
			b = b[:len(b)-3]
			n -= 3
		}
	}
	if verr := c.check(b, err != nil); verr != nil {
		c.err = verr
		return 0, verr
	}
	c.lines += bytes.Count(b, []byte{'\n'})
	c.off += int64(n)
	return n, err
}

// check validates b as the continuation of the UTF-8 text read so far.
func (c *checkedReader) check(b []byte, last bool) error {
	data := b
	if len(c.carry) > 0 {
		data = append(append([]byte(nil), c.carry...), b...)
	}
	c.carry = c.carry[:0]
	line := c.lines + 1
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			if data[i] == '\n' {
				line++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			if !last && !utf8.FullRune(data[i:]) {
				c.carry = append(c.carry, data[i:]...)
				return nil
			}
			return &inputError{line, fmt.Sprintf("invalid UTF-8 (byte %#x)", data[i])}
		}
		i += size
	}
	return nil
}

// tooLong is the message for an entry over limit bytes.
func tooLong(limit int64) string {
	return fmt.Sprintf("an entry longer than the limit of %d bytes (%d MiB) per entry", limit, limit>>20)
}

// csvReader reads a CSV input file, the prompts' or a trace's, under one
// rule: a leading byte order mark is dropped, invalid UTF-8 and a record over
// MaxEntryBytes stop the read, and every error names the file and line.
type csvReader struct {
	name string
	in   *checkedReader
	cr   *csv.Reader
}

func newCSVReader(r io.Reader, name string) *csvReader {
	in := newCheckedReader(r, MaxEntryBytes)
	return &csvReader{name: name, in: in, cr: csv.NewReader(in)}
}

// Header reads the header row.
func (c *csvReader) Header() ([]string, error) {
	h, _, err := c.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s:1: no CSV header row: the file is empty", c.name)
	}
	return h, err
}

// Read reads the next record and the line it starts on; io.EOF at the end.
func (c *csvReader) Read() ([]string, int, error) {
	rec, err := c.cr.Read()
	if err == io.EOF {
		return nil, 0, io.EOF
	}
	if err != nil {
		var ie *inputError
		var pe *csv.ParseError
		switch {
		case errors.As(err, &ie):
			return nil, 0, fmt.Errorf("%s:%d: %s", c.name, ie.line, ie.msg)
		case errors.As(err, &pe):
			return nil, 0, fmt.Errorf("%s:%d: bad CSV row: %v", c.name, pe.StartLine, pe.Err)
		}
		return nil, 0, fmt.Errorf("%s: bad CSV row: %w", c.name, err)
	}
	line, _ := c.cr.FieldPos(0)
	if size := c.cr.InputOffset() - c.in.mark; size > MaxEntryBytes {
		return nil, 0, fmt.Errorf("%s:%d: %s", c.name, line, tooLong(MaxEntryBytes))
	}
	c.in.Mark(c.cr.InputOffset())
	return rec, line, nil
}
