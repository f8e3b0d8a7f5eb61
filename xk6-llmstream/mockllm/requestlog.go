package mockllm

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"sync"
)

// RequestLogTool is the tool call of an answer: what the mock sent.
type RequestLogTool struct {
	Name      string `json:"name"`
	ID        string `json:"id,omitempty"`
	Arguments string `json:"arguments"`
}

// RequestLog is one line of the ground-truth log (Config.Log): what the mock
// did for one request — a generation, or an embeddings or rerank call (Kind
// set; then InputTokens is what the call's usage reported, Batch its inputs,
// and the event arrays are empty). Times named *_ns are either unix nanoseconds
// (arrival_ns, end_ns, event_write_ns) or nanosecond offsets from arrival
// (queue_wait_ns, prefill_ns, event_due_ns) as each field says.
type RequestLog struct {
	// Seq is the arrival sequence number (0, 1, 2, ...) that, with the seed,
	// derives the request's random draws.
	Seq uint64 `json:"seq"`
	// ArrivalNS is when the handler began, unix ns.
	ArrivalNS int64 `json:"arrival_ns"`
	// Endpoint is the request path, Dialect its wire format.
	Endpoint string `json:"endpoint"`
	Dialect  string `json:"dialect"`
	// Model is the model name answered with.
	Model string `json:"model"`
	// Kind is "embed" or "rerank" for a call (endpoints.Calls), absent for
	// a generation request. Batch is a call's inputs (documents for
	// rerank); CallDelayNS its modeled latency (CallLatency) and
	// CallWriteNS when its answer was written (unix ns, the answer's
	// x_mock_ts_ns), 0 when none was.
	Kind        string `json:"kind,omitempty"`
	Batch       int    `json:"batch,omitempty"`
	CallDelayNS int64  `json:"call_delay_ns,omitempty"`
	CallWriteNS int64  `json:"call_write_ns,omitempty"`
	// Stream is whether the request asked for a stream.
	Stream bool `json:"stream"`
	// Status is the HTTP status sent (0 if none was).
	Status int `json:"status"`
	// Fault is the injected fault, if any.
	Fault Fault `json:"fault,omitempty"`
	// Outcome: "ok" (answered to its normal end), "fault" (a fault cut the
	// answer or replaced it), "client_gone" (the client left or the server
	// closed), "rejected" (400, 401, 429 queue full).
	Outcome string `json:"outcome"`
	// Error says what went wrong for outcomes other than ok.
	Error string `json:"error,omitempty"`
	// InputTokens is the prompt's token count (Config.Tokenizer) as reported
	// in usage; CachedTokens how many of them the prefix cache served.
	InputTokens  int `json:"input_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// ImageTokens is the part of InputTokens the prompt's images cost
	// (ImageTokens' rule).
	ImageTokens int `json:"image_tokens,omitempty"`
	// OutputInvalid is set when the request asked for structured output:
	// "valid", or why the answer was made invalid on purpose ("not_json":
	// cut short, also by max_tokens; "schema": a value of the wrong type).
	OutputInvalid string `json:"output_invalid,omitempty"`
	// OutputTokens and ReasoningTokens are the tokens planned for the answer
	// (reasoning included in OutputTokens); SentTokens those actually sent.
	OutputTokens    int `json:"output_tokens"`
	ReasoningTokens int `json:"reasoning_tokens"`
	SentTokens      int `json:"sent_tokens"`
	// FinishReason is the planned finish reason (stop, length, end_turn,
	// max_tokens).
	FinishReason string `json:"finish_reason,omitempty"`
	// ToolCall is the tool call the answer made (tool_use answers), nil for
	// a text answer. Its argument events have kind "tool_args", the event
	// that names the call (when the dialect sends one apart) kind "tool".
	ToolCall *RequestLogTool `json:"tool_call,omitempty"`
	// QueueWaitNS is arrival → slot granted. PrefillNS is the drawn prefill:
	// the first token is due at QueueWaitNS + PrefillNS.
	QueueWaitNS int64 `json:"queue_wait_ns"`
	PrefillNS   int64 `json:"prefill_ns"`
	// One entry per event written, in order. EventDueNS is the event's due
	// offset from arrival (queue wait included); EventWriteNS its write time,
	// unix ns — the x_mock_ts_ns it carries; EventLateNS its lateness (write −
	// due, ns); EventTokens the output tokens it carried; EventKinds its kind
	// ("role", "reasoning", "text", "finish", "usage", "done", "message_start",
	// "content_block_start", "ping", "signature", "content_block_stop",
	// "message_delta", "message_stop", "malformed", "error", "json").
	EventDueNS   []int64  `json:"event_due_ns"`
	EventWriteNS []int64  `json:"event_write_ns"`
	EventLateNS  []int64  `json:"event_late_ns"`
	EventTokens  []int    `json:"event_tokens"`
	EventKinds   []string `json:"event_kinds"`
	// Events, EventsOmitted and TokensOmitted are set only on a line that
	// hit the bound (LogHeadEvents, LogTailEvents): Events is the number of
	// events written, EventsOmitted how many of them the arrays leave out —
	// they came between entry LogHeadEvents−1 and entry LogHeadEvents — and
	// TokensOmitted the output tokens those carried.
	Events        int `json:"events,omitempty"`
	EventsOmitted int `json:"events_omitted,omitempty"`
	TokensOmitted int `json:"events_omitted_tokens,omitempty"`
	tailNext      int // the tail ring's oldest entry, past the bound
	// GoneNS, on a client_gone line (not one the server's Close cut), is
	// when the client's connection went away as the server saw it (unix
	// ns): with SentTokens, the ground truth of a request its client
	// abandoned. Absent otherwise.
	GoneNS int64 `json:"gone_ns,omitempty"`
	// EndNS is when the handler finished, unix ns.
	EndNS int64 `json:"end_ns"`
}

// logQueue is the number of request lines that may wait for the log writer
// before a finishing request waits for room.
const logQueue = 4096

// logWriter owns Config.Log: one goroutine encodes queued lines into a buffer;
// close drains the queue, flushes and returns the first write error.
type logWriter struct {
	ch   chan *RequestLog
	done chan struct{}
	err  error // set by the goroutine before done closes

	mu     sync.RWMutex // guards closed: put holds it shared, close exclusively
	closed bool
}

func newLogWriter(w io.Writer) *logWriter {
	l := &logWriter{ch: make(chan *RequestLog, logQueue), done: make(chan struct{})}
	go l.run(w)
	return l
}

func (l *logWriter) run(w io.Writer) {
	defer close(l.done)
	bw := bufio.NewWriterSize(w, 256<<10)
	enc := json.NewEncoder(bw)
	for rec := range l.ch {
		if l.err != nil {
			continue // keep draining so writers never block on a dead log
		}
		l.err = enc.Encode(rec)
		if l.err == nil && len(l.ch) == 0 {
			l.err = bw.Flush() // idle: let readers see complete lines
		}
	}
	if err := bw.Flush(); l.err == nil {
		l.err = err
	}
}

// put queues a line. Lines put after close are dropped (there are none: the
// Server closes the log only after every handler returned).
func (l *logWriter) put(rec *RequestLog) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return
	}
	rec.seal()
	l.ch <- rec
}

func (l *logWriter) close() error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.ch)
	}
	l.mu.Unlock()
	<-l.done
	return l.err
}

// The bound of a log line's event arrays: a request that writes more than
// LogHeadEvents + LogTailEvents events (a long answer, one token an event)
// keeps its first LogHeadEvents and its last LogTailEvents, so that a line
// holds at most 5,120 events (about 250 KB of JSON, as much in memory while
// the request runs) instead of growing with the answer (~45 bytes of JSON
// per event: a 1M-token answer would write a 45 MB line).
const (
	LogHeadEvents = 4096
	LogTailEvents = 1024
)

// addEvent records one event written. Past the bound, the arrays' last
// LogTailEvents entries are a ring of the latest events (seal puts them
// back in order) and the events pushed out of it are counted.
func (l *RequestLog) addEvent(due, write, late int64, tokens int, kind string) {
	if len(l.EventKinds) < LogHeadEvents+LogTailEvents {
		l.EventDueNS = append(l.EventDueNS, due)
		l.EventWriteNS = append(l.EventWriteNS, write)
		l.EventLateNS = append(l.EventLateNS, late)
		l.EventTokens = append(l.EventTokens, tokens)
		l.EventKinds = append(l.EventKinds, kind)
		return
	}
	i := LogHeadEvents + l.tailNext
	l.EventsOmitted++
	l.TokensOmitted += l.EventTokens[i]
	l.EventDueNS[i], l.EventWriteNS[i], l.EventLateNS[i], l.EventTokens[i], l.EventKinds[i] = due, write, late, tokens, kind
	l.tailNext = (l.tailNext + 1) % LogTailEvents
}

// seal puts the tail's ring back in write order and counts the events of a
// bounded line; it runs once, when the line is queued.
func (l *RequestLog) seal() {
	if l.EventsOmitted == 0 {
		return
	}
	l.Events = len(l.EventKinds) + l.EventsOmitted
	k := l.tailNext
	rotate(l.EventDueNS[LogHeadEvents:], k)
	rotate(l.EventWriteNS[LogHeadEvents:], k)
	rotate(l.EventLateNS[LogHeadEvents:], k)
	rotate(l.EventTokens[LogHeadEvents:], k)
	rotate(l.EventKinds[LogHeadEvents:], k)
	l.tailNext = 0
}

// rotate moves s[k:] before s[:k].
func rotate[T any](s []T, k int) {
	slices.Reverse(s[:k])
	slices.Reverse(s[k:])
	slices.Reverse(s)
}
