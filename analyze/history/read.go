package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// File is what Read read of a history file.
type File struct {
	Name    string
	Records []Record
	// Lines are the line numbers of the records, in the same order.
	Lines []int64
	// Damage says how the file ended early (a cut last line); empty when
	// it ended well.
	Damage string
	// Skipped are the numbers of the bad lines skipped (ReadOptions.Lenient).
	Skipped []int64
}

// ReadOptions say how Read reads.
type ReadOptions struct {
	// Lenient skips bad lines in the middle of the file (listed in
	// File.Skipped) instead of failing.
	Lenient bool
}

// ReadFile reads the history file at path.
func ReadFile(path string, o ReadOptions) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, rundata.Errorf("history: %w", err)
	}
	defer f.Close()
	return Read(f, path, o)
}

// Read reads history records, one JSON object a line (blank lines allowed),
// from r; name names the input in errors. A bad line — not JSON, not a
// record, a version newer than this package reads — is an error naming the
// line (a model.InputError), unless Lenient. A last line that is cut (no
// newline, not a whole record: a writer was killed) is not an error: the
// records before it are returned and Damage says what was lost.
func Read(r io.Reader, name string, o ReadOptions) (*File, error) {
	out := &File{Name: name}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := int64(1); ; n++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return out, rundata.Errorf("history: %s:%d: %w", name, n, rerr)
		}
		cut := rerr != nil // the last line, without its newline
		if len(bytes.TrimSpace(line)) > 0 {
			rec, err := decode(line)
			switch {
			case err == nil:
				out.Records = append(out.Records, rec)
				out.Lines = append(out.Lines, n)
			case cut:
				out.Damage = fmt.Sprintf("%s: last line %d is cut short (%d bytes, no newline: %v); read the %d records before it",
					name, n, len(line), err, len(out.Records))
			case o.Lenient:
				out.Skipped = append(out.Skipped, n)
			default:
				return out, rundata.Errorf("history: %s:%d: %w", name, n, err)
			}
		}
		if cut {
			return out, nil
		}
	}
}

// decode reads one line as a record.
func decode(line []byte) (Record, error) {
	var rec Record
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&rec); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return rec, fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
		}
		return rec, fmt.Errorf("invalid record: %v", err)
	}
	if dec.More() {
		return rec, errors.New("invalid record: more than one JSON value on the line")
	}
	if err := rec.validate(); err != nil {
		return rec, err
	}
	return rec, nil
}
