package stream

import (
	"bytes"
	"errors"

	"github.com/valyala/fastjson"
)

// delta is what one SSE event contributed to a stream, as a dialect decoder
// understood it. The builder turns deltas and their read times into a Record.
type delta struct {
	answer    []byte     // answer text in this event (all choices); owned by the decoder
	reasoning []byte     // reasoning / thinking text in this event; owned by the decoder
	toolText  bool       // a non-empty tool-call name or arguments fragment
	newTools  int        // tool calls that began in this event
	tools     []toolFrag // what the event says of each tool call

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
	cached          int  // input tokens read from the prompt cache, with hasInput
	cacheCreation   int  // input tokens written to the prompt cache, with hasInput
	hasTimings      bool // timings holds the server's own timings
	timings         ServerTimings

	streamErr   string // the server's error message, when isStreamErr
	isStreamErr bool
	serverNS    int64   // ground-truth write time from the event, 0 if none
	shape       Dialect // the dialect the event's shape shows, "" if it does not tell
}

func (d *delta) reset() {
	tools := d.tools[:0]
	*d = delta{}
	d.tools = tools
}

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

// parseEventObject does what every dialect does first with an event's data:
// [DONE] marks the end (some gateways send it on Anthropic streams too), a
// blank keep-alive is skipped, an "error" event that is not JSON is a stream
// error, anything else must be a JSON object, whose ground-truth stamp is
// recorded. It returns nil when the caller has nothing more to decode (with the
// error, if any).
func parseEventObject(p *fastjson.Parser, ev *Event, d *delta) (*fastjson.Value, error) {
	data := ev.Data
	if isDone(data) {
		d.end, d.terminal = true, true
		return nil, nil
	}
	if isBlank(data) { // a keep-alive "data:" with nothing in it
		return nil, nil
	}
	v, err := p.ParseBytes(data)
	if err != nil {
		if string(ev.Type) == "error" {
			d.isStreamErr, d.streamErr = true, string(data)
			return nil, nil
		}
		return nil, invalidJSON(data, err)
	}
	if v.Type() != fastjson.TypeObject {
		return nil, errNotObject
	}
	d.serverNS = groundTruth(v)
	return v, nil
}

// eventType is an event's type: its JSON "type", else its SSE event name
// (servers send either or both).
func eventType(v *fastjson.Value, ev *Event) (string, error) {
	typ, err := getString(v, "type")
	if err != nil || len(typ) > 0 {
		return string(typ), err
	}
	return string(ev.Type), nil
}

// getNestedInt returns the integer field of the object o[obj]; ok is false
// when either is absent or null.
func getNestedInt(o *fastjson.Value, obj, field string) (n int, ok bool, err error) {
	inner, err := getObject(o, obj)
	if err != nil || inner == nil {
		return 0, false, err
	}
	return getInt(inner, field)
}
