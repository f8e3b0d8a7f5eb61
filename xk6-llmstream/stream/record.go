package stream

import (
	"time"
)

// Record is everything the engine learned from one streamed request: when each
// piece of generated text arrived, what it was, how many tokens it carried and how
// the stream ended. A Record is returned for every request, failed or not: whatever
// arrived before an error is kept.
//
// All durations are measured on the monotonic clock from Start, which is taken just
// before the request is handed to the HTTP transport (so a new connection's set-up
// is part of TTFT, as a user would experience it). An event's time is taken when the
// read that completed it returned from the connection, before any decoding.
//
// Durations that did not happen are zero and their Has* flag is false.
type Record struct {
	// Dialect is the wire format that was decoded (never DialectAuto once a
	// response was read).
	Dialect Dialect
	// Model is the model the server named in its response (first non-empty),
	// else the one in the request body.
	Model string
	// Status is the HTTP status code, 0 when no response arrived.
	Status int

	// Kind is "embed" or "rerank" for a non-streaming call (see
	// Dialect.CallKind), "" for a stream. A call's E2E is the read that
	// completed its answer; it has no TTFT, TPOT or ITL.
	Kind string
	// Batch is a call's inputs (embed) or documents (rerank) as its request
	// body counted them; Results is what the answer held (vectors, or ranked
	// documents: fewer with top_n).
	Batch   int
	Results int

	// Start is the wall-clock and monotonic time just before the request was sent.
	Start time.Time

	// Headers is request start → response headers received.
	Headers time.Duration
	// FirstEvent is request start → first complete SSE event of any kind.
	FirstEvent time.Duration
	// TTFT is request start → first event carrying generated text (answer,
	// reasoning/thinking or tool-call arguments), never a role-only or empty chunk.
	TTFT    time.Duration
	HasTTFT bool
	// TTFTAnswer is request start → first answer (non-reasoning) text. Set only
	// when the stream had reasoning before the answer (HasReasoning).
	TTFTAnswer    time.Duration
	HasTTFTAnswer bool
	// E2E is request start → end of stream (last byte read, or the error).
	E2E time.Duration
	// TPOT is (E2E − TTFT) / (OutputTokens − 1), vLLM's definition; set only when
	// OutputTokens ≥ 2 and the request did not fail.
	TPOT    time.Duration
	HasTPOT bool

	// Stages split TTFT into connection set-up, request write, wait for the
	// headers, headers → first event and first event → first text (see
	// Stages): they add up to TTFT exactly when HasTTFT.
	Stages Stages

	// ITL holds the gaps between consecutive text-bearing events, in order
	// (len = text events − 1).
	ITL []time.Duration
	// ITLTokens, when the server reported per-event token counts (usage on every
	// chunk, e.g. vLLM continuous_usage_stats), holds how many output tokens the
	// event that closed each gap carried (same length as ITL). Nil when unknown,
	// which means "assume one token per event".
	ITLTokens []int
	// TextTokens is ITLTokens with the first text event's count in front:
	// the output tokens of every text event (len = TextEvents); nil when
	// unknown. ITLTokens shares its storage.
	TextTokens []int

	// OutputTokens and InputTokens come from the API's usage report when present
	// (TokenSource == TokensFromUsage), else OutputTokens counts text-bearing events
	// and InputTokens is 0 (TokenSource == TokensFromEvents).
	OutputTokens    int
	InputTokens     int
	ReasoningTokens int // from usage details when reported, else reasoning events counted
	TokenSource     TokenSource
	// CachedInputTokens is how many of InputTokens the server read from its
	// prompt cache, when the usage report says (OpenAI chat
	// prompt_tokens_details.cached_tokens, Responses
	// input_tokens_details.cached_tokens, Anthropic cache_read_input_tokens,
	// Gemini cachedContentTokenCount, Cohere cached_tokens, DeepSeek
	// prompt_cache_hit_tokens); 0 when not reported. Set with InputTokens.
	CachedInputTokens int
	// CacheCreationInputTokens is how many of InputTokens the server wrote to
	// its prompt cache (Anthropic cache_creation_input_tokens); 0 otherwise.
	CacheCreationInputTokens int
	// NegativeUsage is true when the usage report gave a negative token
	// count: each such count is kept as 0 (clampUsage), the figure k6 is
	// given too, and the record says so.
	NegativeUsage bool

	// ServerTimings is the server's own account of where its time went, when
	// the stream reports one (ollama's final chunk, llama.cpp server's
	// timings); nil otherwise. It sits beside the client-side timings above so
	// that TTFT can be split into compute and queue plus network.
	ServerTimings *ServerTimings

	// Events counts complete SSE events (comments and pings included as events
	// only if they carried a data field); TextEvents those carrying generated text.
	Events     int
	TextEvents int
	// Bytes is the number of body bytes read (after content decoding).
	Bytes int64

	FinishReason string
	HasReasoning bool
	ToolCalls    int
	// Tools are the tool calls, in the order they began (at most
	// MaxToolCalls; ToolCallsDropped counts the others).
	Tools            []ToolCall
	ToolCallsDropped int

	// Text and Reasoning are filled only when the request asked to keep text.
	Text      string
	Reasoning string

	// Timeline, filled only when the request asked for it, has one entry per
	// complete SSE event (for accuracy measurements against the mock's ground
	// truth, and for debugging).
	Timeline []EventTime

	// Abandoned is set when the caller's Request.Abandon point was reached
	// before the stream ended: the engine cancelled the request and stopped
	// reading, as a user who closes the tab. Err is then nil (an abandoned
	// request did not fail), E2E is Abandoned.At, and there is no TPOT.
	Abandoned *Abandoned

	// Err is nil for a successful request.
	Err *Error
}

// Abandoned is where a request was abandoned.
type Abandoned struct {
	// At is request start → the moment the engine cancelled the request.
	At time.Duration
	// Tokens is the output tokens received by then (the server's cumulative
	// count when it reported one per event, else the text events).
	Tokens int
}

// ServerTimings is what a server reported of its own work on one request.
// Fields the server did not report are zero.
type ServerTimings struct {
	// Prefill is the time the server spent on the prompt (ollama
	// prompt_eval_duration, llama.cpp timings.prompt_ms).
	Prefill time.Duration
	// Decode is the time the server spent generating the output tokens
	// (ollama eval_duration, llama.cpp timings.predicted_ms).
	Decode time.Duration
	// Total is the server's whole time on the request, model load included
	// (ollama total_duration).
	Total time.Duration
	// Load is the time spent loading the model (ollama load_duration).
	Load time.Duration
	// PromptTokens is the prompt tokens the server evaluated (ollama
	// prompt_eval_count, llama.cpp timings.prompt_n): with a prompt cache,
	// possibly fewer than the prompt.
	PromptTokens int
	// OutputTokens is the tokens generated in Decode (ollama eval_count,
	// llama.cpp timings.predicted_n).
	OutputTokens int
}

// TPOT returns the server's own time per output token, Decode / OutputTokens
// (ollama's eval_duration / eval_count, llama.cpp's predicted_per_token_ms);
// ok is false when either is missing. Unlike Record.TPOT it excludes the
// network and the first token.
func (s *ServerTimings) TPOT() (d time.Duration, ok bool) {
	if s == nil || s.OutputTokens <= 0 || s.Decode <= 0 {
		return 0, false
	}
	return s.Decode / time.Duration(s.OutputTokens), true
}

// EventTime is one SSE event on the timeline of a Record.
type EventTime struct {
	// At is request start → the read that completed this event.
	At time.Duration
	// Text is true when the event carried generated text.
	Text bool
	// Tokens is the number of output tokens this event carried when the server
	// reported it (cumulative usage differences), else 0.
	Tokens int
	// ServerNS is the server's own write time (unix ns) when the event carried
	// one in the field named by GroundTruthField (the mock does), else 0.
	ServerNS int64
}

// GroundTruthField is the top-level JSON field in which the mock LLM server puts
// its wall-clock write time (unix nanoseconds) into every event it sends. The
// engine records it per event (EventTime.ServerNS) so that read time − write time
// measures the client path's error.
const GroundTruthField = "x_mock_ts_ns"

// TokenSource says where a Record's token counts came from.
type TokenSource string

const (
	// TokensFromUsage means the API's usage report.
	TokensFromUsage TokenSource = "usage"
	// TokensFromEvents means text-bearing events were counted.
	TokensFromEvents TokenSource = "events"
)

// Failed reports whether the request failed.
func (r *Record) Failed() bool { return r.Err != nil }

// clampUsage keeps a negative token count of the usage report as 0 and
// flags it (NegativeUsage): a count below 0 is a server's bug, and the
// record, the helper's answer and k6 must all get the same figure.
func clampUsage(r *Record) {
	for _, n := range []*int{&r.OutputTokens, &r.InputTokens, &r.ReasoningTokens, &r.CachedInputTokens, &r.CacheCreationInputTokens} {
		if *n < 0 {
			*n, r.NegativeUsage = 0, true
		}
	}
}
