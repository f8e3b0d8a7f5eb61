package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// Event is one dispatched server-sent event. Its byte slices point into the
// Reader's buffers: they are valid only until the next call to Reader.Next.
type Event struct {
	// Type is the value of the last `event:` field of this event; empty means
	// the default type, "message".
	Type []byte
	// Data is the values of the event's `data:` lines joined with "\n".
	Data []byte
	// ID is the last event ID buffer when the event was dispatched (it carries
	// over from earlier events, as the WHATWG rules say).
	ID []byte
	// Retry is the last valid `retry:` value seen so far, in milliseconds, or
	// -1 if none was seen.
	Retry int64
	// At is the time stamp of the read that completed the event (see
	// Reader.SetStamp); zero when the Reader has no stamp function.
	At time.Duration
	// Line is the number (1-based) of the blank line that dispatched the event.
	Line int
}

// ErrLineTooLong is wrapped by the error Reader.Next returns for a line, or an
// event's joined data, longer than the Reader's cap.
var ErrLineTooLong = errors.New("stream: SSE line longer than the cap")

// Reader splits a text/event-stream body into events following the WHATWG
// HTML "server-sent events" parsing rules:
//
//   - lines end with LF, CR or CRLF (a CR at the end of one read followed by
//     an LF at the start of the next is one line end);
//   - one leading UTF-8 byte order mark is skipped;
//   - lines starting with ':' are comments and are ignored;
//   - "field:value", "field: value" (one leading space removed) and a bare
//     "field" (empty value) are fields; unknown fields are ignored;
//   - `data` lines are joined with "\n"; `event` sets the type; `id` sets the
//     last event ID unless it contains NUL; `retry` is kept when all digits;
//   - a blank line dispatches the event if it has a data field; otherwise the
//     event is discarded;
//   - at end of input, an event that was not closed by a blank line is
//     discarded, as the rules require ("If the file ends in the middle of an
//     event, before the final empty line, the incomplete event is not
//     dispatched"). Reader.Pending says whether that happened.
//
// The Reader reuses its buffers: reading an event allocates nothing once the
// buffers have grown to the stream's longest line.
type Reader struct {
	src   io.Reader
	max   int
	stamp func() time.Duration
	now   time.Duration // stamp of the most recent read that returned bytes

	buf       []byte // buf[r:w] is read but not yet parsed
	r, w      int
	lf        int  // index in buf of the next LF at or after r, or -1 if none in buf[r:lfScanned]
	lfScanned int  // buf[r:lfScanned] is known to hold no LF when lf < r
	scanned   int  // buf[r:scanned] is known to hold neither CR nor LF
	skipLF    bool // the previous line ended with CR: skip an LF that follows
	bomDone   bool
	eof       bool
	err       error // sticky
	line      int   // number of lines completed
	bytesRead int64

	data    []byte
	hasData bool
	typ     []byte
	id      []byte
	retry   int64
	pending bool   // at EOF, an unfinished line or event was discarded
	ndjson  bool   // every non-blank line is one event (NewNDJSONReader)
	tail    []byte // at EOF, the unfinished last line (for Unfinished)

	ev Event
}

// DefaultMaxLineBytes is the default cap on one SSE line (and on one event's
// joined data). Generous enough for a very long single-chunk answer; a line
// past the cap fails the request as KindMalformed.
const DefaultMaxLineBytes = 4 << 20

const initialBufSize = 4 << 10

// NewReader returns a Reader over src that fails with ErrLineTooLong for a line
// or an event's data longer than maxLine bytes (DefaultMaxLineBytes if ≤ 0).
func NewReader(src io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	size := initialBufSize
	if size > maxLine+1 {
		size = maxLine + 1
	}
	return &Reader{src: src, max: maxLine, retry: -1, lf: -1, buf: make([]byte, size)}
}

// NewNDJSONReader returns a Reader over a newline-delimited JSON body (such
// as ollama's native stream) instead of an event stream: every line that is
// not blank is one event, its Data the line and its Type empty. Line ends,
// the BOM, the cap and an unfinished last line (discarded, Pending) are
// handled as for event streams.
func NewNDJSONReader(src io.Reader, maxLine int) *Reader {
	r := NewReader(src, maxLine)
	r.ndjson = true
	return r
}

// Reset makes the Reader read from src as a new stream, keeping its buffers.
func (r *Reader) Reset(src io.Reader) {
	*r = Reader{src: src, max: r.max, stamp: r.stamp, retry: -1, lf: -1, buf: r.buf,
		data: r.data[:0], typ: r.typ[:0], id: r.id[:0], ndjson: r.ndjson}
}

// SetStamp makes the Reader call f once after every read of its source that
// returned bytes; the value is stamped on every event completed by that read
// (Event.At). f is where the caller takes the time.
func (r *Reader) SetStamp(f func() time.Duration) { r.stamp = f }

// Line returns the number of complete lines read so far.
func (r *Reader) Line() int { return r.line }

// BytesRead returns the number of bytes read from the source so far.
func (r *Reader) BytesRead() int64 { return r.bytesRead }

// Pending reports whether, at end of input, an unfinished line or an event
// without its closing blank line was discarded.
func (r *Reader) Pending() bool { return r.pending }

// Unfinished returns, once Next has returned io.EOF, the event that the end of
// input cut off before its closing blank line (its last line may lack its line
// ending too), or nil. The SSE rules discard such an event, and so does Next;
// a caller may accept one it recognises (the engine accepts a final
// "data: [DONE]"). It returns the event at most once.
func (r *Reader) Unfinished() *Event {
	if !r.eof || !r.pending || r.err != io.EOF {
		return nil
	}
	tail := r.tail
	r.tail = r.tail[:0]
	if len(tail) > 0 {
		r.line++
		if _, err := r.processLine(tail); err != nil {
			return nil
		}
	}
	ev, _ := r.processLine(nil)
	return ev
}

// Next returns the next event. At the end of input it returns io.EOF; any other
// error is the source's read error or a line past the cap (wrapping
// ErrLineTooLong), after which the Reader returns the same error forever. The
// returned Event is reused by the next call.
func (r *Reader) Next() (*Event, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		// Parse every complete line already in the buffer.
		for r.r < r.w {
			if r.skipLF {
				r.skipLF = false
				if r.buf[r.r] == '\n' {
					r.r++
					continue
				}
			}
			end := r.lineEnd()
			if end < 0 {
				break
			}
			line := r.buf[r.r:end]
			isCR := r.buf[end] == '\r'
			r.r = end + 1
			if isCR {
				if r.r < r.w {
					if r.buf[r.r] == '\n' {
						r.r++
					}
				} else {
					r.skipLF = true
				}
			}
			r.line++
			if ev, err := r.processLine(line); ev != nil || err != nil {
				if err != nil {
					r.err = err
				}
				return ev, err
			}
		}
		if r.eof {
			if r.r < r.w || r.hasData {
				r.pending = true
				r.tail = append(r.tail[:0], r.buf[r.r:r.w]...)
			}
			r.r, r.w = 0, 0
			r.err = io.EOF
			return nil, io.EOF
		}
		if err := r.fill(); err != nil {
			r.err = err
			return nil, err
		}
	}
}

// lineEnd returns the index in buf of the first CR or LF in buf[r:w], or -1.
// It remembers how far it has looked, so that neither a stream of CR-only
// lines nor a long line arriving in many small reads is scanned again and
// again (which would be quadratic).
func (r *Reader) lineEnd() int {
	from := max(r.r, r.scanned) // buf[r:from] holds neither CR nor LF
	if r.lf < from {
		lfFrom := max(from, r.lfScanned)
		if i := bytes.IndexByte(r.buf[lfFrom:r.w], '\n'); i >= 0 {
			r.lf = lfFrom + i
		} else {
			r.lf = -1
			r.lfScanned = r.w
		}
	}
	end := r.w
	if r.lf >= 0 {
		end = r.lf
	}
	if cr := bytes.IndexByte(r.buf[from:end], '\r'); cr >= 0 {
		return from + cr
	}
	if r.lf >= 0 {
		return r.lf
	}
	r.scanned = r.w
	return -1
}

// fill reads more bytes into the buffer, compacting or growing it first.
func (r *Reader) fill() error {
	if r.r > 0 {
		n := copy(r.buf, r.buf[r.r:r.w])
		r.lfScanned = max(r.lfScanned-r.r, 0)
		r.scanned = max(r.scanned-r.r, 0)
		r.lf = -1
		r.r, r.w = 0, n
	}
	if r.w > r.max {
		return fmt.Errorf("line %d: %w (%d bytes)", r.line+1, ErrLineTooLong, r.max)
	}
	if r.w == len(r.buf) {
		size := 2 * len(r.buf)
		if size > r.max+1 {
			size = r.max + 1
		}
		if size <= r.w {
			size = r.w + 1
		}
		nb := make([]byte, size)
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	for tries := 0; ; tries++ {
		n, err := r.src.Read(r.buf[r.w:])
		if n > 0 {
			r.bytesRead += int64(n)
			if r.stamp != nil {
				r.now = r.stamp()
			}
			if !r.bomDone {
				// The BOM can only be at the very start of the stream; wait for
				// three bytes (or EOF) before deciding.
				if r.w+n < 3 && err == nil {
					r.w += n
					continue
				}
				r.bomDone = true
				if bytes.HasPrefix(r.buf[:r.w+n], bom) {
					copy(r.buf, r.buf[3:r.w+n])
					n -= 3
				}
			}
			r.w += n
		}
		if err == io.EOF {
			r.eof = true
			r.bomDone = true
			return nil
		}
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if tries > 100 {
			return io.ErrNoProgress
		}
	}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// processLine applies one line; it returns the event when the line dispatches one.
func (r *Reader) processLine(line []byte) (*Event, error) {
	if r.ndjson {
		if isBlank(line) {
			return nil, nil
		}
		// line points into buf, which stays put until the next call.
		r.ev = Event{Data: line, ID: r.id, Retry: r.retry, At: r.now, Line: r.line}
		return &r.ev, nil
	}
	if len(line) == 0 {
		if !r.hasData {
			r.typ = r.typ[:0]
			return nil, nil
		}
		r.ev = Event{Type: r.typ, Data: r.data, ID: r.id, Retry: r.retry, At: r.now, Line: r.line}
		// The slices stay valid until the next call: the buffers are only
		// truncated here and overwritten by later appends.
		r.data = r.data[:0]
		r.hasData = false
		r.typ = r.typ[:0]
		return &r.ev, nil
	}
	if line[0] == ':' {
		return nil, nil
	}
	field, value := line, line[len(line):]
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		field, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "data":
		if r.hasData {
			if len(r.data)+1+len(value) > r.max {
				return nil, fmt.Errorf("line %d: %w: event data reached %d bytes", r.line, ErrLineTooLong, r.max)
			}
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.hasData = true
	case "event":
		r.typ = append(r.typ[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = append(r.id[:0], value...)
		}
	case "retry":
		if v, ok := parseDigits(value); ok {
			r.retry = v
		}
	}
	return nil, nil
}

// parseDigits parses a non-empty run of ASCII digits; a value too large for
// an int64 becomes math.MaxInt64.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if v > (math.MaxInt64-d)/10 {
			v = math.MaxInt64
		} else if v != math.MaxInt64 {
			v = v*10 + d
		}
	}
	return v, true
}
