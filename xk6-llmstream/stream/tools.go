package stream

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/llmstream/xk6-llmstream/internal/truncate"

	"github.com/valyala/fastjson"
)

// ToolCall is one tool call the model made, as streamed.
type ToolCall struct {
	// ID is the call's id as the API gave it ("" for Gemini and ollama,
	// which give none).
	ID string
	// Name is the function's name.
	Name string
	// Arguments is the arguments JSON text as the model wrote it: the
	// streamed fragments joined, or the whole object when the API sends a
	// call whole (Gemini args, ollama arguments). Cut at MaxToolArgBytes.
	Arguments string
	// FirstArg is request start → the read that brought the first non-empty
	// piece of the arguments; HasFirstArg is false when none came.
	FirstArg    time.Duration
	HasFirstArg bool
	// ParseError is why Arguments is not a JSON object ("" when it is, or
	// when no arguments came): ToolArgsInvalidJSON, ToolArgsNotObject,
	// ToolArgsTooLarge.
	ParseError string
	// Truncated is true when the ID or the Name was longer than its bound
	// (MaxToolIDBytes, MaxToolNameBytes) and was cut there.
	Truncated bool
}

// The reasons a tool call's arguments did not parse (ToolCall.ParseError).
const (
	ToolArgsInvalidJSON = "invalid_json" // not JSON (cut short, or malformed)
	ToolArgsNotObject   = "not_object"   // JSON, but not an object
	ToolArgsTooLarge    = "too_large"    // over MaxToolArgBytes: cut, not judged
)

// MaxToolCalls bounds the tool calls a Record keeps (Record.ToolCalls still
// counts them all; ToolCallsDropped says how many were not kept), and
// MaxToolArgBytes one call's arguments.
const (
	MaxToolCalls    = 64
	MaxToolArgBytes = 1 << 20
)

// MaxToolNameBytes and MaxToolIDBytes bound a tool call's name and id: a
// longer one is cut at the bound (at a UTF-8 boundary) and the call marked
// Truncated, as arguments over MaxToolArgBytes are cut and marked too_large.
// APIs allow 64-character function names and ids of a few dozen bytes, so
// nothing real is cut; an upstream's megabyte name is.
const (
	MaxToolNameBytes = 256
	MaxToolIDBytes   = 256
)

// toolFrag is what one event says of one tool call. key names the call
// within the stream (a block or item index, or the decoder's own count);
// -1 begins a new call. whole marks the complete arguments (kept only when
// no fragment came before). The byte slices are valid until the next event.
type toolFrag struct {
	key            int
	id, name, args []byte
	whole          bool
	argsSeen       bool // arguments came in a form not kept (Gemini partialArgs)
}

// toolAcc is a tool call being built.
type toolAcc struct {
	key      int
	call     ToolCall
	args     []byte
	streamed bool // fragments came: a whole arguments value is a repeat
	cut      bool
}

// takeTools adds an event's tool-call fragments, read at time at.
func (b *builder) takeTools(d *delta, at time.Duration) {
	for i := range d.tools {
		f := &d.tools[i]
		t := b.toolFor(f.key)
		if t == nil {
			continue
		}
		if len(f.id) > 0 && t.call.ID == "" {
			t.call.ID = t.bounded(f.id, MaxToolIDBytes)
		}
		if len(f.name) > 0 && t.call.Name == "" {
			t.call.Name = t.bounded(f.name, MaxToolNameBytes)
		}
		if f.argsSeen && !t.call.HasFirstArg {
			t.call.FirstArg, t.call.HasFirstArg = at, true
		}
		if len(f.args) == 0 || (f.whole && t.streamed) {
			continue
		}
		if f.whole {
			t.args = t.args[:0]
		} else {
			t.streamed = true
		}
		if room := MaxToolArgBytes - len(t.args); len(f.args) > room {
			t.args, t.cut = append(t.args, f.args[:max(room, 0)]...), true
		} else {
			t.args = append(t.args, f.args...)
		}
		if !t.call.HasFirstArg {
			t.call.FirstArg, t.call.HasFirstArg = at, true
		}
	}
}

// bounded is b as a string cut to max bytes, marking the call Truncated
// when it cuts.
func (t *toolAcc) bounded(b []byte, max int) string {
	s, cut := truncate.UTF8(string(b[:min(len(b), max+utf8.UTFMax)]), max)
	t.call.Truncated = t.call.Truncated || cut
	return s
}

// toolFor returns the call a fragment with key belongs to, adding it when
// new; nil when MaxToolCalls are kept already.
func (b *builder) toolFor(key int) *toolAcc {
	if key >= 0 {
		for i := len(b.tools) - 1; i >= 0; i-- {
			if b.tools[i].key == key {
				return b.tools[i]
			}
		}
	}
	if len(b.tools) >= MaxToolCalls {
		b.rec.ToolCallsDropped++
		return nil
	}
	t := &toolAcc{key: key}
	b.tools = append(b.tools, t)
	return t
}

// finishTools fills Record.Tools and judges each call's arguments.
func (b *builder) finishTools() {
	if len(b.tools) == 0 {
		return
	}
	b.rec.Tools = make([]ToolCall, len(b.tools))
	for i, t := range b.tools {
		c := t.call
		c.Arguments = string(t.args)
		c.ParseError = argsError(t.args, t.cut)
		b.rec.Tools[i] = c
	}
}

// argsError is why arguments are not a JSON object; "" when they are or
// are empty (a call without arguments).
func argsError(args []byte, cut bool) string {
	switch {
	case cut:
		return ToolArgsTooLarge
	case len(args) == 0:
		return ""
	case !json.Valid(args):
		return ToolArgsInvalidJSON
	}
	for _, c := range args {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return ""
		}
		break
	}
	return ToolArgsNotObject
}

// addTool notes a tool-call fragment in the event's delta.
func (d *delta) addTool(key int, id, name, args []byte, whole bool) {
	d.tools = append(d.tools, toolFrag{key: key, id: id, name: name, args: args, whole: whole})
}

// argsBytes is a tool call's arguments value as JSON text: a string's
// contents, else the value's JSON (an object, as Gemini and ollama send
// it), appended to scratch; nil when null or absent.
func argsBytes(v *fastjson.Value, scratch []byte) []byte {
	if isNull(v) {
		return nil
	}
	if v.Type() == fastjson.TypeString {
		s, _ := v.StringBytes()
		return s
	}
	return v.MarshalTo(scratch)
}
