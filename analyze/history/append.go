package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/llmstream/xk6-llmstream/internal/filelock"
)

// Append adds rec as one line at the end of the history file at path,
// creating the file if needed. It holds an exclusive lock on the file while
// it writes (flock on unix, a lock file elsewhere), so records of jobs that
// append at once are whole lines one after another, however big. A cut last
// line left by a writer that was killed is removed first (a complete record
// missing only its newline is kept); note says so, and is empty otherwise.
func Append(path string, rec Record) (note string, err error) {
	if rec.Schema == "" {
		rec.Schema, rec.Version = Schema, Version
	}
	if err := rec.validate(); err != nil {
		return "", fmt.Errorf("history: %s: %w", path, err)
	}
	line, err := marshal(rec)
	if err != nil {
		return "", fmt.Errorf("history: %s: %w", path, err)
	}
	line = append(line, '\n')
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("history: %s: %w", path, cerr)
		}
	}()
	unlock, err := filelock.Lock(f)
	if err != nil {
		return "", fmt.Errorf("history: locking %s: %w", path, err)
	}
	defer func() {
		if uerr := unlock(); err == nil && uerr != nil {
			err = fmt.Errorf("history: unlocking %s: %w", path, uerr)
		}
	}()
	note, prefix, err := repairEnd(f)
	if err != nil {
		return "", fmt.Errorf("history: %s: %w", path, err)
	}
	if _, err := f.Write(append(prefix, line...)); err != nil {
		return "", fmt.Errorf("history: appending to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("history: %s: %w", path, err)
	}
	return note, nil
}

// repairEnd looks at the end of the locked file: when its last line has no
// newline, a complete record gets one (prefix) and anything else — a record
// cut by a killed writer — is truncated away.
func repairEnd(f *os.File) (note string, prefix []byte, err error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return "", nil, err
	}
	size := st.Size()
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return "", nil, err
	}
	if last[0] == '\n' {
		return "", nil, nil
	}
	start, tail, err := lastLine(f, size)
	if err != nil {
		return "", nil, err
	}
	var rec Record
	if json.Unmarshal(tail, &rec) == nil && rec.validate() == nil {
		return "", []byte{'\n'}, nil
	}
	if err := f.Truncate(start); err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("removed a cut last line (%d bytes) left by an interrupted write", size-start), nil, nil
}

// lastLine returns the offset and the bytes of the file's last line (after
// its last newline).
func lastLine(f *os.File, size int64) (int64, []byte, error) {
	const chunk = 64 << 10
	end := size
	var tail []byte
	for end > 0 {
		off := max(0, end-chunk)
		buf := make([]byte, end-off)
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return 0, nil, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return off + int64(i) + 1, append(buf[i+1:], tail...), nil
		}
		tail = append(buf, tail...)
		end = off
	}
	return 0, tail, nil
}

// marshal writes a record as one line of JSON, without its newline.
func marshal(rec Record) ([]byte, error) { return json.Marshal(rec) }
