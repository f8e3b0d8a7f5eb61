package k6json

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"time"
)

// Point is one sample. The Scanner reuses the Point it passes to OnPoint: copy
// the fields you keep.
type Point struct {
	Metric string    // metric name (interned)
	Time   time.Time // the sample's time, in UTC
	// Elapsed is Time minus the time of the input's first Point line (of any
	// metric). k6 writes samples in batches, so a sample may come a little before
	// the first line's and have a small negative Elapsed.
	Elapsed time.Duration
	Value   float64
	Tags    *TagSet // interned; never nil
	Line    int64   // 1-based line number in the input
	// Metadata is the sample's metadata (k6's exec.vu.metrics.metadata, e.g.
	// llm_request_id), sorted by key; nil unless Scanner.KeepMetadata is set.
	// The slice is reused for the next point; its strings may be kept.
	Metadata []Tag
}

// LineError is a corrupt line: its input, 1-based line number and what is wrong.
type LineError struct {
	Input string
	Line  int64
	Err   error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Input, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// FileStats is what one input held.
type FileStats struct {
	Input  string
	Bytes  int64 // bytes of NDJSON read (after decompression)
	Lines  int64 // lines read, including blank, skipped and damaged ones
	Points int64 // Point lines of every metric
	Kept   int64 // points passed to OnPoint
	Decls  int64 // Metric declaration lines
	Other  int64 // valid JSON objects that are neither Point nor Metric (ignored)
	// Start is the time of the first Point line; zero if there was none.
	Start time.Time
	// Skipped counts corrupt lines skipped under Lenient; SkippedLines holds the
	// first few of their line numbers.
	Skipped      int64
	SkippedLines []int64
	// Damage is empty for an input read to its end. Otherwise it says how the
	// input ended early: a final line cut short, a gzip stream cut short. The
	// points before the damage were read and handed over.
	Damage string
}

// MaxSkippedLines is how many skipped line numbers FileStats keeps.
const MaxSkippedLines = 5

// DefaultMaxLineBytes is the default limit on the length of one line.
const DefaultMaxLineBytes = 64 << 20

// Scanner reads k6 NDJSON inputs one after another. Tag sets and metric names
// are interned across all the inputs of one Scanner. A Scanner is not safe for
// concurrent use.
type Scanner struct {
	// Keep says whether the points of a metric are wanted; it is asked once per
	// metric name per Scanner, at the metric's first Point (k6 writes a metric's
	// declaration before it, so OnMetric has seen it). Nil keeps every metric.
	// Points of other metrics are checked for well-formed JSON only (their time
	// and value are not decoded). Set it before the first Scan.
	Keep func(metric string) bool
	// OnMetric, if set, receives each Metric declaration (once per input that
	// declares it).
	OnMetric func(m *Metric) error
	// OnPoint, if set, receives each point of a kept metric. An error it returns
	// stops the scan and is returned as is.
	OnPoint func(p *Point) error
	// Lenient skips corrupt lines (counted in FileStats) instead of failing.
	Lenient bool
	// MaxLineBytes limits the length of a line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// KeepMetadata decodes each kept point's metadata into Point.Metadata.
	// Set it before the first Scan.
	KeepMetadata bool

	dec *decoder
	buf []byte
}

func (s *Scanner) decoder() *decoder {
	if s.dec == nil {
		s.dec = newDecoder(s.Keep)
		s.dec.metadata = s.KeepMetadata
	}
	return s.dec
}

// TagSets returns every tag set interned so far, indexed by TagSet.ID.
func (s *Scanner) TagSets() []*TagSet { return s.decoder().in.sets }

// Scan reads one input to its end. name labels the input in errors and in the
// returned FileStats. A read error that means the data was cut short
// (io.ErrUnexpectedEOF, a corrupt or cut gzip or deflate stream) ends the input
// with FileStats.Damage set, not an error. Corrupt lines are *LineError (or
// skipped when Lenient); an error from OnPoint or OnMetric is returned as is.
func (s *Scanner) Scan(r io.Reader, name string) (FileStats, error) {
	sc := &scan{s: s, dc: s.decoder(), st: FileStats{Input: name}}
	maxLine := s.MaxLineBytes
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	if s.buf == nil {
		s.buf = make([]byte, 1<<20)
	}
	buf := s.buf
	var (
		start, end int
		readErr    error
	)
	for {
		// Hand over every complete line in buf[start:end].
		for {
			nl := bytes.IndexByte(buf[start:end], '\n')
			if nl < 0 {
				break
			}
			stop, err := sc.line(buf[start:start+nl], false)
			start += nl + 1
			if err != nil || stop {
				return sc.st, err
			}
		}
		if readErr != nil {
			break
		}
		if start > 0 {
			end = copy(buf, buf[start:end])
			start = 0
		}
		if end == len(buf) {
			if len(buf) >= maxLine {
				return sc.st, &LineError{Input: name, Line: sc.st.Lines + 1, Err: fmt.Errorf("line longer than %d bytes", maxLine)}
			}
			nb := make([]byte, min(2*len(buf), maxLine))
			copy(nb, buf[:end])
			buf = nb
			s.buf = nb
		}
		n, err := r.Read(buf[end:])
		end += n
		if sc.st.Bytes == 0 && n > 0 {
			sc.summary = looksLikeSummary(buf[:end])
		}
		sc.st.Bytes += int64(n)
		if err != nil {
			readErr = err
		}
	}
	return sc.st, sc.end(buf[start:end], readErr)
}

// scan is the state of one Scan.
type scan struct {
	s         *Scanner
	dc        *decoder
	st        FileStats
	res       lineResult
	pt        Point
	startNano int64 // of the input's first Point line, once haveStart
	haveStart bool
	summary   bool // the input starts like a k6 end-of-test summary
}

// end handles what follows the last newline when the reader is done, and
// says how the input ended: at its end (io.EOF), cut short (Damage), or with
// an I/O error.
func (sc *scan) end(rest []byte, readErr error) error {
	damaged := readErr != io.EOF
	if damaged && !isTruncation(readErr) {
		return fmt.Errorf("%s: %w", sc.st.Input, readErr)
	}
	if damaged && sc.st.Bytes == 0 {
		// Nothing could be read: a file corrupt at its start, not a run cut
		// short (that leaves the data written before the damage).
		return fmt.Errorf("%s: gzip data damaged at its start, nothing could be read (%v)", sc.st.Input, readErr)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		// The last line has no newline: keep it if it is whole. An input cut
		// short may end on a line that happens to be whole; it is kept too.
		if _, err := sc.line(rest, true); err != nil {
			return err
		}
	}
	if damaged {
		msg := fmt.Sprintf("data cut short after %d bytes (%v)", sc.st.Bytes, readErr)
		if sc.st.Damage != "" {
			msg += "; " + sc.st.Damage
		}
		sc.st.Damage = msg
	}
	return nil
}

// line decodes one line (final: the input's last, without a newline) and
// hands it over. stop ends the input early.
func (sc *scan) line(line []byte, final bool) (stop bool, err error) {
	st := &sc.st
	st.Lines++
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if !sc.dc.fast(line, !sc.haveStart, &sc.res) {
		if perr := sc.dc.slow(line, !sc.haveStart, &sc.res); perr != nil {
			if err := sc.notSamples(); err != nil {
				return true, err
			}
			switch {
			case final:
				st.Damage = fmt.Sprintf("last line %d is incomplete (%d bytes) and was dropped", st.Lines, len(line))
				return true, nil
			case sc.s.Lenient:
				st.Skipped++
				if len(st.SkippedLines) < MaxSkippedLines {
					st.SkippedLines = append(st.SkippedLines, st.Lines)
				}
				return false, nil
			}
			return true, &LineError{Input: st.Input, Line: st.Lines, Err: perr}
		}
	}
	if err := sc.deliver(); err != nil {
		return true, err
	}
	return false, nil
}

// deliver counts a decoded line and passes a kept point or a declaration to
// the Scanner's callbacks.
func (sc *scan) deliver() error {
	res, st := &sc.res, &sc.st
	switch res.kind {
	case linePoint, lineSkipped:
		st.Points++
		if !sc.haveStart && res.hasTime {
			sc.startNano, sc.haveStart = res.unixNano, true
			st.Start = time.Unix(0, sc.startNano).UTC()
		}
		if res.kind == lineSkipped {
			return nil
		}
		st.Kept++
		if sc.s.OnPoint != nil {
			sc.pt = Point{
				Metric:  res.metric.name,
				Time:    time.Unix(0, res.unixNano).UTC(),
				Elapsed: time.Duration(res.unixNano - sc.startNano),
				Value:   res.value,
				Tags:    res.tags,
				Line:    st.Lines,
			}
			if len(res.meta) > 0 {
				sc.pt.Metadata = res.meta
			}
			return sc.s.OnPoint(&sc.pt)
		}
	case lineMetric:
		st.Decls++
		if sc.s.OnMetric != nil {
			return sc.s.OnMetric(res.decl)
		}
	case lineOther:
		st.Other++
		return sc.notSamples()
	}
	return nil
}

// isTruncation reports whether a read error means the data ends early or is
// damaged (what a killed k6 leaves), rather than an I/O failure.
func isTruncation(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) ||
		errors.Is(err, gzip.ErrHeader) || errors.As(err, &ce)
}
