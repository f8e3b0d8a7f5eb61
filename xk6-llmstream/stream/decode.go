package stream

import (
	"errors"
	"io"
)

// Decode reads a recorded text/event-stream body (or, for Ollama, a
// newline-delimited JSON body) from r and decodes it as dialect d
// (DialectAuto, or "", detects it from the events; a body whose first
// non-blank byte is '{' is NDJSON, hence Ollama). There is no
// timing: every duration in the Record is zero. Text, reasoning and the
// timeline are kept. Of the options, WithMaxLineBytes applies.
//
// Problems with the stream itself (a malformed event, an error event, no end
// marker, no text) are in Record.Err, as Client.Do would report them. The
// returned error is non-nil only when reading r failed; the Record then holds
// what was decoded before the failure.
func Decode(r io.Reader, d Dialect, opts ...Option) (*Record, error) {
	cfg := newConfig(opts)
	rec := &Record{}
	b := newBuilder(rec, d, true, true, "")
	b.responded = true
	lines := d == Ollama
	if d == DialectAuto || d == "" {
		if r, lines = sniffNDJSON(r); lines {
			rec.Dialect = Ollama
			b.dec = newDecoder(Ollama)
		}
	}
	rd := newBodyReader(r, cfg.maxLine, lines)
	end, err := pump(rd, b)
	rec.Bytes = rd.BytesRead()
	b.finish(end != endReadError, rd.Pending())
	if end == endReadError {
		return rec, err
	}
	return rec, nil
}

// streamEnd is how pump stopped.
type streamEnd int

const (
	endEOF       streamEnd = iota // the body ended cleanly
	endTerminal                   // [DONE] or message_stop: nothing more is expected
	endFailed                     // a malformed event or an error event (recorded)
	endReadError                  // reading the body failed (returned, not recorded)
	endAbandoned                  // the caller's Abandon point was reached: reading stopped
)

// finalDone accepts a last "data: [DONE]" that the body ended without the
// blank line that closes an event: the stream did end as the server meant it
// to. Any other unfinished event stays discarded (Reader.Pending).
func finalDone(rd *Reader, b *builder) streamEnd {
	ev := rd.Unfinished()
	if ev == nil || !isDone(ev.Data) {
		return endEOF
	}
	if b.event(ev, ev.At) != nil {
		return endFailed
	}
	return endEOF
}

// pump feeds rd's events to b until the stream ends, fails, or sends its
// terminal event.
// drainBuffered adds the complete events that were read from the connection
// with the one that reached the abandon point (they arrived in the same
// read: the client received them) without reading any more (tb stops), and
// reports endTerminal when they ended the stream.
func drainBuffered(rd *Reader, b *builder, tb *timedBody) streamEnd {
	tb.stopped = true
	for {
		ev, err := rd.Next()
		if err != nil || b.event(ev, ev.At) != nil {
			return endAbandoned
		}
		if b.terminal {
			return endTerminal
		}
	}
}

func pump(rd *Reader, b *builder) (streamEnd, error) {
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return finalDone(rd, b), nil
		}
		if err != nil {
			if errors.Is(err, ErrLineTooLong) {
				b.fail(KindMalformed, "%v; raise the cap (max line bytes) if such lines are expected", err)
				return endFailed, nil
			}
			return endReadError, err
		}
		if b.event(ev, ev.At) != nil {
			return endFailed, nil
		}
		if b.terminal {
			return endTerminal, nil
		}
		if b.abandonTokens > 0 && b.tokensSoFar() >= b.abandonTokens {
			return endAbandoned, nil
		}
	}
}
