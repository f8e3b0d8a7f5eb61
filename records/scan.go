package records

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// FileStats is what one records file held.
type FileStats struct {
	Header  Header
	Records int64 // Record lines read and handed over
	Lines   int64
	// Trailer is the file's last line, nil when the file has none: then
	// Damage says so.
	Trailer *Trailer
	// Damage is empty for a file read to a proper end (its Trailer).
	// Otherwise it says how the file ended early; the records before the
	// damage were read and handed over.
	Damage string
}

// LineError is a corrupt line in the middle of a file.
type LineError struct {
	Line int64
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ErrNotRecords is returned when the first line is not a records Header.
var ErrNotRecords = errors.New("not a records file (its first line is not a " + Format + " header)")

// MaxLineBytes bounds one line.
const MaxLineBytes = 64 << 20

// IsHeader reports whether data begins with a records Header line (as a
// Writer writes it): how a reader tells a records file from k6's JSON.
func IsHeader(data []byte) bool {
	return bytes.HasPrefix(data, []byte(`{"format":"`+Format+`"`))
}

// Scan reads a records file (plain JSON Lines: a caller takes gzip off
// first) and calls fn with each Record, which it reuses: copy
// what you keep. A file cut short — a last line without its newline, a
// gzip stream that ends early, no Trailer — is read up to the damage and
// FileStats.Damage says so; a corrupt complete line is a *LineError. An
// error from fn stops the scan and is returned as is.
func Scan(r io.Reader, fn func(*Record) error) (FileStats, error) {
	var st FileStats
	br := bufio.NewReaderSize(r, 1<<16)
	var rec Record
	for {
		line, err := readLine(br)
		if err != nil {
			return st, endOf(&st, err, len(line) > 0)
		}
		st.Lines++
		if stop, err := st.line(line, &rec, fn); stop || err != nil {
			return st, err
		}
	}
}

// line decodes one complete line; stop is true after the Trailer.
func (st *FileStats) line(line []byte, rec *Record, fn func(*Record) error) (stop bool, err error) {
	line = bytes.TrimSpace(line)
	switch {
	case st.Lines == 1:
		if !IsHeader(line) || json.Unmarshal(line, &st.Header) != nil {
			return true, ErrNotRecords
		}
		return false, nil
	case len(line) == 0:
		return false, nil
	case bytes.HasPrefix(line, []byte(`{"end":`)):
		var t Trailer
		if err := json.Unmarshal(line, &t); err != nil {
			return true, &LineError{st.Lines, fmt.Errorf("a corrupt trailer: %v", err)}
		}
		st.Trailer = &t
		return true, nil
	}
	*rec = Record{}
	if err := json.Unmarshal(line, rec); err != nil {
		return true, &LineError{st.Lines, err}
	}
	if rec.V != Version {
		return true, &LineError{st.Lines, fmt.Errorf("record version %d, this reader knows version %d", rec.V, Version)}
	}
	st.Records++
	return false, fn(rec)
}

// readLine returns the next line with its newline, or what is left before
// the end with the read error.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	long := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		if len(long) > MaxLineBytes {
			return nil, fmt.Errorf("a line longer than %d bytes", MaxLineBytes)
		}
		line, err = br.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

// endOf turns the error that ended the reading into damage or an error; cut
// is true when a line had begun without its newline.
func endOf(st *FileStats, err error, cut bool) error {
	var ce flate.CorruptInputError
	if cut {
		st.Lines++
	}
	switch {
	case cut && err == io.EOF:
		// The writer was stopped in the middle of a line.
		st.Damage = fmt.Sprintf("the last line (%d) is cut short", st.Lines)
		return nil
	case err == io.EOF:
		if st.Lines == 0 {
			return ErrNotRecords
		}
		if st.Trailer == nil {
			st.Damage = "the file has no trailer: the writer was stopped before it closed the file (killed, or still running)"
		}
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, gzip.ErrChecksum), errors.As(err, &ce):
		st.Damage = fmt.Sprintf("the compressed data is cut short or corrupt after line %d (%v)", st.Lines, err)
		return nil
	}
	return err
}
