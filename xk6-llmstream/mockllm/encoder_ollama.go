package mockllm

import (
	"strconv"
	"time"
)

// ollamaEncoder is ollama's native /api/chat: newline-delimited JSON, one
// object a line (no SSE framing), message.content or message.thinking per
// chunk, and a last line with done:true, done_reason, the counts and the
// mock's own durations in nanoseconds: prompt_eval_duration is the planned
// prefill, eval_duration the planned decode (first token due → last token
// due), so a client's server timings can be checked against the plan.
type ollamaEncoder struct{}

// ollamaEnd closes a stamped NDJSON line.
const ollamaEnd = "}\n"

func (ollamaEncoder) id(seq uint64) string { return "mock-ollama-" + strconv.FormatUint(seq, 10) }

func (ollamaEncoder) finishReason(length bool) string {
	if length {
		return "length"
	}
	return "stop"
}

// head returns the constant opening of every line of the request:
// `{"model":...,"created_at":"...","message":{"role":"assistant"`.
func (ollamaEncoder) head(g *gen) []byte {
	if g.st.prefix == nil {
		p := append([]byte(nil), `{"model":`...)
		p = appendJSONString(p, g.model)
		p = append(p, `,"created_at":"`...)
		p = g.arrival.UTC().AppendFormat(p, time.RFC3339Nano)
		p = append(p, `","message":{"role":"assistant"`...)
		g.st.prefix = p
	}
	return g.st.prefix
}

func (ollamaEncoder) preamble(g *gen) { g.st.end = ollamaEnd }

func (e ollamaEncoder) token(g *gen, reasoning bool, from, n int) {
	b := append(g.buf, e.head(g)...)
	kind := "text"
	if reasoning {
		kind = "reasoning"
		b = append(b, `,"content":"","thinking":`...)
	} else {
		b = append(b, `,"content":`...)
	}
	b = appendTokens(b, g, reasoning, from, n)
	g.buf = g.stamp(append(b, `},"done":false`...), kind, n)
}

// done appends the fields of the last line after the message.
func (e ollamaEncoder) done(b []byte, g *gen) []byte {
	b = append(b, `,"done":true,"done_reason":"`...)
	b = append(b, g.finishWord()...)
	b = append(b, `","total_duration":`...)
	b = strconv.AppendInt(b, int64(time.Since(g.arrival)), 10)
	b = append(b, `,"prompt_eval_count":`...)
	b = appendInt(b, g.input)
	b = append(b, `,"prompt_eval_duration":`...)
	b = strconv.AppendInt(b, int64(g.prefill), 10)
	b = append(b, `,"eval_count":`...)
	b = appendInt(b, g.reportedTotal())
	b = append(b, `,"eval_duration":`...)
	return strconv.AppendInt(b, int64(g.sched-g.prefill), 10)
}

func (e ollamaEncoder) finish(g *gen) {
	b := append(g.buf, e.head(g)...)
	b = append(b, `,"content":""}`...)
	g.buf = g.stamp(e.done(b, g), "finish", 0)
}

// errorEvent is ollama's error line; the stream ends there.
func (ollamaEncoder) errorEvent(g *gen) {
	g.buf = g.stamp(append(g.buf, `{"error":"mock: injected error event"`...), "error", 0)
}

func (e ollamaEncoder) malformed(g *gen) {
	b := append(g.buf, e.head(g)...)
	g.buf = append(b, `,"content":"cut short`+"\n"...)
	g.unstamped("malformed")
}

// whole is the stream:false answer: one object with the whole message.
func (e ollamaEncoder) whole(g *gen, b []byte) []byte {
	b = append(b, e.head(g)...)
	b = append(b, `,"content":`...)
	b = appendJSONString(b, g.text.text(g.total-g.reasoning))
	if g.reasoning > 0 {
		b = append(b, `,"thinking":`...)
		b = appendJSONString(b, fillerTokens.text(g.reasoning))
	}
	b = append(b, '}')
	return g.stampJSON(append(e.done(b, g), '}'))
}
