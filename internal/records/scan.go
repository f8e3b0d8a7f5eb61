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
	"strconv"
	"strings"
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
	// Skipped counts the bad lines skipped under ScanOptions.Lenient;
	// SkippedLines holds the first MaxSkippedLines of their numbers.
	Skipped      int64
	SkippedLines []int64
}

// MaxSkippedLines is how many skipped line numbers FileStats keeps.
const MaxSkippedLines = 5

// SkippedNote says which lines a lenient scan skipped ("" when none), for a
// warning: "3 bad line(s) skipped (lines 3, 6, 9)".
func (st *FileStats) SkippedNote() string {
	if st.Skipped == 0 {
		return ""
	}
	nums := make([]string, len(st.SkippedLines))
	for i, n := range st.SkippedLines {
		nums[i] = strconv.FormatInt(n, 10)
	}
	more := ""
	if st.Skipped > int64(len(st.SkippedLines)) {
		more = ", …"
	}
	return fmt.Sprintf("%d bad line(s) skipped (lines %s%s)", st.Skipped, strings.Join(nums, ", "), more)
}

// ScanOptions change how Scan reads.
type ScanOptions struct {
	// Lenient skips a bad line after the header (not JSON, not a Record, a
	// record version this reader does not know, a corrupt trailer) instead
	// of failing: it is counted in FileStats.Skipped with its number. The
	// header is never skipped: without it the file is not a records file.
	Lenient bool
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

var errLongLine = fmt.Errorf("a line longer than the limit of %d bytes (records.MaxLineBytes)", MaxLineBytes)

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
	return ScanWith(r, ScanOptions{}, fn)
}

// ScanWith is Scan with options.
func ScanWith(r io.Reader, o ScanOptions, fn func(*Record) error) (FileStats, error) {
	var st FileStats
	br := bufio.NewReaderSize(r, 1<<16)
	var rec Record
	for {
		line, err := readLine(br)
		if errors.Is(err, errLongLine) {
			return st, &LineError{st.Lines + 1, err}
		}
		if err != nil {
			return st, endOf(&st, err, len(line) > 0)
		}
		st.Lines++
		isRecord, stop, err := st.line(line, &rec)
		var le *LineError
		if o.Lenient && errors.As(err, &le) {
			st.Skipped++
			if len(st.SkippedLines) < MaxSkippedLines {
				st.SkippedLines = append(st.SkippedLines, st.Lines)
			}
			continue
		}
		if stop || err != nil {
			return st, err
		}
		if isRecord {
			st.Records++
			if err := fn(&rec); err != nil {
				return st, err
			}
		}
	}
}

// line decodes one complete line: isRecord when it decoded a Record into
// rec; stop after the Trailer. A bad line is a *LineError.
func (st *FileStats) line(line []byte, rec *Record) (isRecord, stop bool, err error) {
	line = bytes.TrimSpace(line)
	switch {
	case st.Lines == 1:
		if !IsHeader(line) || json.Unmarshal(line, &st.Header) != nil {
			return false, true, ErrNotRecords
		}
		return false, false, nil
	case len(line) == 0:
		return false, false, nil
	case bytes.HasPrefix(line, []byte(`{"end":`)):
		var t Trailer
		if err := json.Unmarshal(line, &t); err != nil {
			return false, true, &LineError{st.Lines, fmt.Errorf("a corrupt trailer: %v", err)}
		}
		st.Trailer = &t
		return false, true, nil
	}
	*rec = Record{}
	if err := json.Unmarshal(line, rec); err != nil {
		return false, true, &LineError{st.Lines, err}
	}
	if rec.V != Version {
		return false, true, &LineError{st.Lines, fmt.Errorf("record version %d, this reader knows version %d", rec.V, Version)}
	}
	return true, false, nil
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
			return nil, errLongLine
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
