package workload

import (
	"bytes"
	"io"
)

// lineReader passes reads through and answers which line a byte offset is on,
// for offsets asked in increasing order. It keeps only the newlines between the
// last offset asked and the end of what was read, so its memory is bounded by
// the reader's look-ahead, not the file.
type lineReader struct {
	r       io.Reader
	off     int64   // bytes read so far
	pending []int64 // offsets of newlines not yet passed by a query
	before  int     // newlines before the last offset asked
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, chunk := 0, p[:n]; ; {
		j := bytes.IndexByte(chunk[i:], '\n')
		if j < 0 {
			break
		}
		l.pending = append(l.pending, l.off+int64(i+j))
		i += j + 1
	}
	l.off += int64(n)
	return n, err
}

// line is the 1-based line of byte offset off.
func (l *lineReader) line(off int64) int {
	k := 0
	for k < len(l.pending) && l.pending[k] < off {
		k++
	}
	l.before += k
	l.pending = l.pending[k:]
	return l.before + 1
}
