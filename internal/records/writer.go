package records

import (
	"bufio"
	"bytes"
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

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"github.com/llmstream/xk6-llmstream/internal/filelock"
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
	// Overwrite lets Create replace an existing file that is neither empty
	// nor a records file. Without it such a file is left alone
	// (ErrNotRecordsFile): a script given as the records file by mistake
	// must not be lost.
	Overwrite bool
	// OnError, when set, is told the first write error as it happens (on
	// the writer's goroutine); the records after it are lost and counted.
	// Close returns the same error.
	OnError func(error)
}

// ErrNotRecordsFile is Create's refusal to replace a file that is neither
// empty nor a records file (without Options.Overwrite).
var ErrNotRecordsFile = errors.New("exists and is not a records file")

// ErrInUse is Create's refusal of a file another writer holds.
var ErrInUse = errors.New("is being written by another records writer")

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

	dst    io.Writer
	gz     *gzip.Writer
	file   io.Closer
	unlock func() error // releases Create's lock; nil for NewWriter
	name   string       // the file's name in errors; empty for NewWriter
	done   chan struct{}
	err    error // the first write error, set before done is closed
}

// Stats are a Writer's counters.
type Stats struct {
	Written, Dropped, Lost int64
	Bytes                  int64 // bytes written (before compression)
}

// Create creates (or truncates) path and writes records to it, gzip-
// compressed when the name ends in .gz. It holds an exclusive advisory lock
// on a regular file until Close (flock on unix; internal/filelock), and
// refuses a file another writer holds (ErrInUse): two writers on one file
// would overwrite each other's lines. It refuses to replace an existing
// regular file that is neither empty nor a records file (plain or gzip)
// unless o.Overwrite (ErrNotRecordsFile). Both errors name the file. A
// write error (a full disk) removes the regular file at Close: no partial
// records file is left.
func Create(path string, o Options) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	unlock, err := prepare(f, path, o.Overwrite)
	if err != nil {
		f.Close()
		return nil, err
	}
	w := newWriter(atomicfile.Injected(path, f), strings.HasSuffix(path, ".gz"), o, func(w *Writer) {
		w.file, w.unlock, w.name = f, unlock, path
	})
	return w, nil
}

// prepare locks a regular file, checks that it may be replaced, and
// truncates it. Other files (a pipe, /dev/stdout) are written as they are.
func prepare(f *os.File, path string, overwrite bool) (unlock func() error, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil
	}
	unlock, err = filelock.TryLock(f)
	if errors.Is(err, filelock.ErrLocked) {
		return nil, fmt.Errorf("records: %s %w (%v): give each writer a file of its own", path, ErrInUse, err)
	}
	if err != nil {
		return nil, fmt.Errorf("records: locking %s: %w", path, err)
	}
	if fi.Size() > 0 && !overwrite && !startsWithHeader(f) {
		err = fmt.Errorf("records: %s %w (its first line is not a %s header): it was left as it is", path, ErrNotRecordsFile, Format)
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		if uerr := unlock(); uerr != nil {
			err = errors.Join(err, uerr)
		}
		if !errors.Is(err, ErrNotRecordsFile) {
			err = fmt.Errorf("records: %s: %w", path, err)
		}
		return nil, err
	}
	return unlock, nil
}

// startsWithHeader reports whether the file begins with a records Header,
// plain or gzip-compressed (whatever its name).
func startsWithHeader(f *os.File) bool {
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return false
		}
		r = zr
	}
	head := make([]byte, 64)
	n, _ := io.ReadFull(r, head)
	return IsHeader(head[:n])
}

// NewWriter writes records to dst (gzip-compressed when gz is set). Close
// does not close dst.
func NewWriter(dst io.Writer, gz bool, o Options) *Writer { return newWriter(dst, gz, o, nil) }

// newWriter makes the Writer, lets set fill in its file fields, and starts
// its goroutine.
func newWriter(dst io.Writer, gz bool, o Options, set func(*Writer)) *Writer {
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
	if set != nil {
		set(w)
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
// A failed write counts as written the complete lines it wrote (plain files:
// a short write is the part of buf that reached the file), and the rest as
// lost; every later batch is lost. The first error goes to OnError.
func (w *Writer) flush(buf *[]byte, n int64) {
	b := *buf
	*buf = b[:0]
	if w.err != nil {
		w.lost.Add(n)
		return
	}
	wrote, err := w.dst.Write(b)
	if err == nil && w.gz != nil {
		err = w.gz.Flush()
	}
	if err != nil {
		done := int64(0)
		if w.gz == nil {
			// The batch's lines are its records, then (last) the trailer.
			done = min(int64(bytes.Count(b[:wrote], []byte{'\n'})), n)
			w.bytes.Add(int64(wrote))
		}
		w.written.Add(done)
		w.lost.Add(n - done)
		if w.name != "" {
			w.err = fmt.Errorf("records: writing %s: %w", w.name, err)
		} else {
			w.err = fmt.Errorf("records: writing: %w", err)
		}
		if w.o.OnError != nil {
			w.o.OnError(w.err)
		}
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
	if w.gz != nil && w.err == nil {
		errs = append(errs, w.gz.Close())
	}
	if w.err != nil && w.unlock != nil {
		// A regular file cut by a write error (a full disk) is removed, not
		// left partial; the error says so.
		if rerr := os.Remove(w.name); rerr == nil {
			w.err = fmt.Errorf("%w (the partial file was removed)", w.err)
		}
	}
	if w.unlock != nil {
		errs = append(errs, w.unlock())
	}
	if w.file != nil {
		errs = append(errs, w.file.Close())
	}
	if err := errors.Join(errs...); err != nil && w.err == nil {
		w.err = fmt.Errorf("records: closing %s: %w", w.name, err)
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
