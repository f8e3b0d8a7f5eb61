package stream

import (
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/redact"
)

// builder accumulates a Record from decoded events and their read times, then
// derives the rest in finish (accumulate, then close).
type builder struct {
	rec          *Record
	dec          decoder
	d            delta // reused per event
	keepText     bool
	keepTimeline bool
	reqModel     string
	scrub        *redact.Redactor // nil: only key-shaped strings are removed

	text, reasoning strings.Builder

	lastText        time.Duration
	lastAt          time.Duration // read time of the latest event
	answerSeen      bool
	reasoningEvents int

	hasOutput, hasInput, hasReasoningTok bool
	output, input, reasoningTok          int
	cached, cacheCreation                int

	cum        int   // cumulative output tokens at the last event that reported them
	perEvent   bool  // every text event so far reported cumulative output tokens
	textTokens []int // output tokens carried by each text event, while perEvent

	tools []*toolAcc // tool calls so far

	end, terminal bool
	failed        bool
	// abandonTokens > 0 stops the stream once that many output tokens
	// arrived (Request.Abandon); abandoned is set when a stop happened.
	abandonTokens int
	abandoned     bool
	responded     bool // a response (or a recorded body) was read
}

func newBuilder(rec *Record, d Dialect, keepText, keepTimeline bool, reqModel string) *builder {
	if d == "" {
		d = DialectAuto
	}
	rec.Dialect = d
	return &builder{rec: rec, dec: newDecoder(d), keepText: keepText, keepTimeline: keepTimeline,
		reqModel: reqModel, perEvent: true}
}

// event decodes one SSE event read at time at and adds it to the record. It
// returns a malformed-event error (already recorded) or nil.
func (b *builder) event(ev *Event, at time.Duration) *Error {
	r := b.rec
	r.Events++
	b.lastAt = at
	if r.Events == 1 {
		r.FirstEvent = at
	}
	d := &b.d
	d.reset()
	if err := b.dec.decode(ev, d); err != nil {
		if b.keepTimeline {
			r.Timeline = append(r.Timeline, EventTime{At: at})
		}
		data := b.scrub.String(string(ev.Data))
		b.fail(KindMalformed, "event %d (line %d): %v; data: %s", r.Events, ev.Line, err, snippet([]byte(data)))
		return r.Err
	}
	b.takeMeta(d)
	isText := b.takeText(d, at)
	if len(d.tools) > 0 {
		b.takeTools(d, at)
	}
	tokens := b.takeUsage(d, isText)
	if b.keepTimeline {
		r.Timeline = append(r.Timeline, EventTime{At: at, Text: isText, Tokens: tokens, ServerNS: d.serverNS})
	}
	if d.isStreamErr {
		b.fail(KindStreamError, "%s", d.streamErr)
		return r.Err
	}
	return nil
}

// takeMeta keeps what an event says about the stream: its dialect, model and
// finish reason, and whether it ended the stream.
func (b *builder) takeMeta(d *delta) {
	r := b.rec
	if r.Dialect == DialectAuto && d.shape != "" {
		r.Dialect = d.shape
	}
	if r.Model == "" && len(d.model) > 0 {
		r.Model = string(d.model)
	}
	if d.finish != "" {
		r.FinishReason = d.finish
	}
	b.end = b.end || d.end
	b.terminal = b.terminal || d.terminal
}

// takeText counts an event's generated text (answer, reasoning or tool-call
// arguments) and its time (TTFT, ITL), and reports whether it had any.
func (b *builder) takeText(d *delta, at time.Duration) bool {
	r := b.rec
	isReasoning := len(d.reasoning) > 0
	isAnswer := len(d.answer) > 0 || d.toolText
	isText := isReasoning || isAnswer
	r.ToolCalls += d.newTools
	if isReasoning {
		b.reasoningEvents++
		r.HasReasoning = true
	}
	if isAnswer && !b.answerSeen {
		b.answerSeen = true
		if b.reasoningEvents > 0 {
			r.TTFTAnswer, r.HasTTFTAnswer = at, true
		}
	}
	if isText {
		r.TextEvents++
		if !r.HasTTFT {
			r.TTFT, r.HasTTFT = at, true
		} else {
			r.ITL = append(r.ITL, at-b.lastText)
		}
		b.lastText = at
		if b.keepText {
			b.text.Write(d.answer)
			b.reasoning.Write(d.reasoning)
		}
	}
	return isText
}

// takeUsage keeps an event's token counts and returns the output tokens it
// carried (0 unless the server reports cumulative counts).
func (b *builder) takeUsage(d *delta, isText bool) int {
	tokens := 0
	if d.hasOutput {
		tokens = d.output - b.cum
		b.cum = d.output
		b.hasOutput, b.output = true, d.output
	}
	if d.hasInput {
		b.hasInput, b.input = true, d.input
		b.cached, b.cacheCreation = d.cached, d.cacheCreation
	}
	if d.hasTimings {
		t := d.timings
		b.rec.ServerTimings = &t
	}
	if d.hasReasoningTok {
		b.hasReasoningTok, b.reasoningTok = true, d.reasoningTok
	}
	if isText && b.perEvent {
		if d.hasOutput {
			b.textTokens = append(b.textTokens, tokens)
		} else {
			b.perEvent, b.textTokens = false, nil
		}
	}
	return tokens
}

// tokensSoFar is the output tokens received so far: the server's
// cumulative count when every text event reported one, else the text
// events (one token each, as OutputTokens counts them without usage).
func (b *builder) tokensSoFar() int {
	if b.hasOutput && b.perEvent {
		return b.output
	}
	return b.rec.TextEvents
}

// fail records the request's error; the first error wins. The message is
// scrubbed of secrets, then cut to maxMessage.
func (b *builder) fail(kind ErrorKind, format string, args ...any) {
	if b.rec.Err != nil {
		return
	}
	b.failed = true
	msg := truncateMessage(b.scrub.String(sprintf(format, args...)), maxMessage)
	b.rec.Err = &Error{Kind: kind, Message: msg}
}

// failTimeout records a deadline: "timeout" before any text, "timeout_midstream" after.
func (b *builder) failTimeout(format string, args ...any) {
	kind := KindTimeout
	if b.rec.HasTTFT {
		kind = KindTimeoutMidstream
	}
	b.fail(kind, format, args...)
}

// finish derives tokens, TPOT and the end-of-stream verdict. eof is true when
// the body ended cleanly (no read error); pending when the reader discarded an
// unfinished event at the end.
func (b *builder) finish(eof, pending bool) {
	r := b.rec
	if (r.Dialect == DialectAuto || r.Dialect == "") && b.responded {
		r.Dialect = OpenAIChat
		if a, ok := b.dec.(*autoDecoder); ok && a.picked != "" {
			r.Dialect = a.picked
		}
	}
	if r.Model == "" {
		r.Model = b.reqModel
	}
	b.finishTools()
	if b.keepText {
		r.Text = b.text.String()
		r.Reasoning = b.reasoning.String()
	}
	if b.hasOutput {
		r.TokenSource = TokensFromUsage
		r.OutputTokens = b.output
		r.InputTokens = b.input
		r.CachedInputTokens, r.CacheCreationInputTokens = b.cached, b.cacheCreation
	} else {
		r.TokenSource = TokensFromEvents
		r.OutputTokens = r.TextEvents
	}
	if b.hasReasoningTok {
		r.ReasoningTokens = b.reasoningTok
	} else {
		r.ReasoningTokens = b.reasoningEvents
	}
	clampUsage(r)
	perEvent := b.hasOutput && b.perEvent && r.TextEvents > 0
	if perEvent && len(b.textTokens) > 1 {
		r.ITLTokens = b.textTokens[1:]
	}
	if perEvent && len(b.textTokens) == r.TextEvents {
		r.TextTokens = b.textTokens
	}
	if !perEvent {
		for i := range r.Timeline {
			r.Timeline[i].Tokens = 0
		}
	}
	if r.Err == nil && eof && !b.abandoned {
		switch {
		case !b.end:
			msg := "the body ended without an end-of-stream marker (no [DONE], finish_reason or message_stop)"
			if pending {
				msg += "; its last event was cut off before the blank line that ends an event"
			}
			b.fail(KindResetMidstream, "%s", msg)
		case r.TextEvents == 0 && !declined(r.FinishReason):
			b.fail(KindEmptyOutput, "the stream ended normally (%s) but carried no generated text", endWord(r.FinishReason))
		}
	}
	if r.Err == nil && !b.abandoned && r.OutputTokens >= 2 && r.HasTTFT {
		r.TPOT, r.HasTPOT = (r.E2E-r.TTFT)/time.Duration(r.OutputTokens-1), true
	}
}

// declined reports whether a finish reason says the model declined to answer
// (OpenAI "content_filter", Anthropic "refusal", Gemini "SAFETY", ...): a
// stream that ends so without text is complete, with no TTFT, not empty_output.
func declined(finish string) bool {
	switch strings.ToLower(finish) {
	case "content_filter", "refusal", "safety", "prohibited_content", "blocklist", "spii", "recitation":
		return true
	}
	return false
}

func endWord(finish string) string {
	if finish == "" {
		return "end marker"
	}
	return "finish reason " + finish
}
