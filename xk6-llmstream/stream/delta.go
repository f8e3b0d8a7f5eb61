package stream

import (
	"bytes"
	"errors"
)

// delta is what one SSE event contributed to a stream, as a dialect decoder
// understood it. The builder turns deltas and their read times into a Record.
type delta struct {
	answer    []byte // answer text in this event (all choices); owned by the decoder
	reasoning []byte // reasoning / thinking text in this event; owned by the decoder
	toolText  bool   // a non-empty tool-call name or arguments fragment
	newTools  int    // tool calls that began in this event

	model  []byte // valid until the next event
	finish string // finish_reason / stop_reason, "" if none

	end      bool // an end-of-stream marker: a finish or stop reason, [DONE], message_stop
	terminal bool // nothing more is expected: [DONE] or message_stop

	hasOutput       bool // output is the cumulative output-token count reported
	output          int
	hasInput        bool
	input           int
	hasReasoningTok bool
	reasoningTok    int

	streamErr   string // the server's error message, when isStreamErr
	isStreamErr bool
	serverNS    int64   // ground-truth write time from the event, 0 if none
	shape       Dialect // the dialect the event's shape shows, "" if it does not tell
}

func (d *delta) reset() { *d = delta{} }

// decoder decodes one dialect's events.
type decoder interface {
	decode(ev *Event, d *delta) error
}

// isDone reports whether data is the OpenAI end sentinel "[DONE]".
func isDone(data []byte) bool {
	return len(data) >= 6 && string(bytes.TrimSpace(data)) == "[DONE]"
}

// isBlank reports whether data holds only JSON white space.
func isBlank(data []byte) bool {
	return len(bytes.TrimLeft(data, " \t\r\n")) == 0
}

var errNotObject = errors.New("event data is not a JSON object")
