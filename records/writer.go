package records

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Item is a request waiting to be written: it appends its Record line (with
// the newline) to b. It is called on the writer's goroutine, off the stream's
// path, so the conversion of the engine's record costs the streams nothing
// but CPU.
type Item interface {
	AppendRecord(b []byte) []byte
	// Size estimates the bytes the waiting item holds, for the queue's bound.
	Size() int
}

// Defaults of a Writer.
const (
	// DefaultQueue is how many records may wait for the writer.
	DefaultQueue = 8192
	// DefaultQueueBytes bounds the memory the waiting records hold.
	DefaultQueueBytes = 64 << 20
	// DefaultFlushEvery is the longest a written record waits in the
	// writer's buffer before it reaches the file: what a SIGKILL can lose.
	DefaultFlushEvery = 200 * time.Millisecond
	// DefaultBatchBytes is the buffer size at which a batch is written
	// without waiting for DefaultFlushEvery.
	DefaultBatchBytes = 256 << 10
)

// Options configure a Writer; zero fields take the defaults.
type Options struct {
	Queue      int
	QueueBytes int64
	FlushEvery time.Duration
	BatchBytes int
	// Writer and Instance go into the Header.
	Writer, Instance string
}

// Writer writes records on one goroutine, in batches. Submit never blocks:
// when the queue is full (more records waiting than Options.Queue, or their
// memory over Options.QueueBytes) the record is dropped and counted, and the
// count is written in the Trailer and returned by Stats.
type Writer struct {
	o       Options
	ch      chan Item
	mu      sync.RWMutex // held for reading by Submit, for writing by Close
	closed  bool
	queued  atomic.Int64 // bytes held by waiting items
	written atomic.Int64
	dropped atomic.Int64
	lost    atomic.Int64
	bytes   atomic.Int64

	dst  io.Writer
	gz   *gzip.Writer
	file io.Closer
	done chan struct{}
	err  error // the first write error, set before done is closed
}

// Stats are a Writer's counters.
type Stats struct {
	Written, Dropped, Lost int64
	Bytes                  int64 // bytes written (before compression)
}

// Create creates (or truncates) path and writes records to it, gzip-
// compressed when the name ends in .gz.
func Create(path string, o Options) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	w := newWriter(f, strings.HasSuffix(path, ".gz"), o)
	w.file = f
	return w, nil
}

// NewWriter writes records to dst (gzip-compressed when gz is set). Close
// does not close dst.
func NewWriter(dst io.Writer, gz bool, o Options) *Writer { return newWriter(dst, gz, o) }

func newWriter(dst io.Writer, gz bool, o Options) *Writer {
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if o.QueueBytes <= 0 {
		o.QueueBytes = DefaultQueueBytes
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = DefaultFlushEvery
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	w := &Writer{o: o, ch: make(chan Item, o.Queue), dst: dst, done: make(chan struct{})}
	if gz {
		w.gz = gzip.NewWriter(dst)
		w.dst = w.gz
	}
	go w.loop()
	return w
}

// Submit queues a record; it reports false when the record was dropped (the
// queue is full, or the writer is closed).
func (w *Writer) Submit(it Item) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	size := int64(it.Size())
	if w.closed || w.queued.Add(size) > w.o.QueueBytes {
		if !w.closed {
			w.queued.Add(-size)
		}
		w.dropped.Add(1)
		return false
	}
	select {
	case w.ch <- it:
		return true
	default:
		w.queued.Add(-size)
		w.dropped.Add(1)
		return false
	}
}

// Stats returns the counters so far.
func (w *Writer) Stats() Stats {
	return Stats{Written: w.written.Load(), Dropped: w.dropped.Load(), Lost: w.lost.Load(), Bytes: w.bytes.Load()}
}

// Close writes what is queued and the Trailer, flushes, and closes the file
// (a Writer from Create). It returns the first write error.
func (w *Writer) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.mu.Unlock()
	<-w.done
	return w.err
}

// loop writes the header, then each queued record, in batches: a batch is
// written when the buffer passes BatchBytes or FlushEvery after its first
// record; then the trailer when the queue is closed.
func (w *Writer) loop() {
	defer close(w.done)
	h, _ := json.Marshal(Header{Format: Format, V: Version, CreatedNS: time.Now().UnixNano(),
		Writer: w.o.Writer, Instance: w.o.Instance})
	buf := append(h, '\n')
	w.flush(&buf, 0)
	tick := time.NewTicker(w.o.FlushEvery)
	defer tick.Stop()
	pending := int64(0) // records in buf
	for {
		select {
		case it, ok := <-w.ch:
			if !ok {
				t, _ := json.Marshal(Trailer{End: true, V: Version, Records: w.written.Load() + pending,
					Dropped: w.dropped.Load(), Lost: w.lost.Load()})
				buf = append(append(buf, t...), '\n')
				w.flush(&buf, pending)
				w.finish()
				return
			}
			w.queued.Add(-int64(it.Size()))
			buf = it.AppendRecord(buf)
			pending++
			if len(buf) >= w.o.BatchBytes {
				w.flush(&buf, pending)
				pending = 0
			}
		case <-tick.C:
			if pending > 0 {
				w.flush(&buf, pending)
				pending = 0
			}
		}
	}
}

// flush writes buf (n records) to the destination and, for gzip, flushes the
// compressor so that the file can be read up to here if the process dies.
func (w *Writer) flush(buf *[]byte, n int64) {
	b := *buf
	*buf = b[:0]
	if w.err != nil {
		w.lost.Add(n)
		return
	}
	_, err := w.dst.Write(b)
	if err == nil && w.gz != nil {
		err = w.gz.Flush()
	}
	if err != nil {
		w.err = fmt.Errorf("records: writing: %w", err)
		w.lost.Add(n)
		return
	}
	w.written.Add(n)
	w.bytes.Add(int64(len(b)))
	if cap(b) > 4*w.o.BatchBytes {
		*buf = make([]byte, 0, w.o.BatchBytes)
	}
}

// finish closes the compressor and the file.
func (w *Writer) finish() {
	var errs []error
	if w.gz != nil {
		errs = append(errs, w.gz.Close())
	}
	if w.file != nil {
		errs = append(errs, w.file.Close())
	}
	if err := errors.Join(errs...); err != nil && w.err == nil {
		w.err = fmt.Errorf("records: closing: %w", err)
	}
}

// AppendJSON appends r as one line, the way a Writer's Items may encode it.
func AppendJSON(b []byte, r *Record) []byte {
	line, err := json.Marshal(r)
	if err != nil { // cannot happen: a Record has no unsupported values
		panic(err)
	}
	return append(append(b, line...), '\n')
}
