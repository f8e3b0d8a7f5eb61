package helper

import (
	"encoding/json"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/internal/truncate"
	"github.com/llmstream/xk6-llmstream/metrics"
	"github.com/llmstream/xk6-llmstream/records"
	"github.com/llmstream/xk6-llmstream/stream"
)

// AnswerVersion is the Version of the answers this helper writes. It changes
// when a field changes meaning or goes away; new fields do not change it.
// Version 2 carries the request's k6 samples ready to add (metrics.FromRecord)
// instead of the timings the module derived them from.
const AnswerVersion = 2

// Redacted replaces a secret in any string the helper returns or logs: the
// project's one redaction marker (the engine's messages use it too).
const Redacted = redact.Marker

// Answer is the body of the helper's answer to POST /v1/stream: one stream's
// k6 samples, ready to add with the tags the answer gives, and what a script
// reads of the request (docs/helper-api.md). It is written with
// encoding/json from this type only.
type Answer struct {
	Version int          `json:"version"`
	OK      bool         `json:"ok"`
	Status  int          `json:"status"` // the upstream's HTTP status, 0 when none arrived
	Error   *AnswerError `json:"error"`
	// ID is the request id the module gave (its llm_request_id).
	ID string `json:"id"`
	// Tags are the module's own tags of the samples (metrics.ModuleTags);
	// the module adds the script's tags under them.
	Tags AnswerTags `json:"tags"`
	// Samples are the request's k6 samples (metrics.FromRecord), in the
	// order to add them; times in milliseconds rounded to the microsecond.
	Samples []metrics.Series `json:"samples"`

	Model        string   `json:"model"`
	API          string   `json:"api"`
	TokenSource  string   `json:"token_source"`
	FinishReason *string  `json:"finish_reason"`
	StartUnixNS  *int64   `json:"start_unix_ns"`
	HeadersMS    *float64 `json:"headers_ms"`
	FirstEventMS *float64 `json:"first_event_ms"`

	OutputTokens             int   `json:"output_tokens"`
	InputTokens              int   `json:"input_tokens"`
	ReasoningTokens          int   `json:"reasoning_tokens"`
	CachedInputTokens        int   `json:"cached_input_tokens"`
	CacheCreationInputTokens int   `json:"cache_creation_input_tokens"`
	Events                   int   `json:"events"`
	TextEvents               int   `json:"text_events"`
	Bytes                    int64 `json:"bytes"`
	ToolCalls                int   `json:"tool_calls"`
	HasReasoning             bool  `json:"has_reasoning"`
	ConnReused               bool  `json:"conn_reused"`
	// Server is the server's own account of its work (ollama, llama.cpp);
	// null when it gave none.
	Server *AnswerServer `json:"server"`
	// Kind, Batch and Results describe an embeddings or rerank call
	// ("embed" or "rerank"; inputs or documents sent; vectors or ranked
	// documents answered); absent for a stream.
	Kind    string `json:"kind,omitempty"`
	Batch   int    `json:"batch,omitempty"`
	Results int    `json:"results,omitempty"`

	// Tools are the answer's tool calls (absent when it made none), for a
	// script to run them (the module's Agent).
	Tools []AnswerTool `json:"tools,omitempty"`

	Text          *string     `json:"text,omitempty"`           // keep_text only
	Reasoning     *string     `json:"reasoning,omitempty"`      // keep_text only
	TextTruncated *bool       `json:"text_truncated,omitempty"` // keep_text only
	Timeline      []EventTime `json:"timeline,omitzero"`        // keep_timeline only (then never nil)
}

// AnswerTags are the module's own tags of a request's samples.
type AnswerTags struct {
	Model       string `json:"model"`
	API         string `json:"api"`
	Status      string `json:"status"`
	Error       string `json:"error"`
	TokenSource string `json:"token_source"`
}

// AnswerTool is one tool call of an answer: records.ToolCall and the
// arguments as streamed, redacted.
type AnswerTool struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Arguments  string   `json:"arguments"`
	FirstArgMS *float64 `json:"first_arg_ms"` // request start → first argument piece; null when none came
	ParseError string   `json:"parse_error"`  // "" when the arguments are a JSON object (or empty)
}

// AnswerServer is what the server reported of its own work; a duration is
// null when it was not reported.
type AnswerServer struct {
	PrefillMS    *float64 `json:"prefill_ms"`
	DecodeMS     *float64 `json:"decode_ms"`
	TotalMS      *float64 `json:"total_ms"`
	LoadMS       *float64 `json:"load_ms"`
	TPOTMS       *float64 `json:"tpot_ms"`
	PromptTokens int      `json:"prompt_tokens"`
	OutputTokens int      `json:"output_tokens"`
}

// AnswerError is the failure of a stream in an Answer, and the body of the
// helper's own refusals ({"error": AnswerError}).
type AnswerError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Refusal is the body of the helper's 4xx answers.
type Refusal struct {
	Error AnswerError `json:"error"`
}

// EventTime is one SSE event of an Answer's timeline.
type EventTime struct {
	AtMS     float64 `json:"at_ms"`     // from the request start
	AtNS     int64   `json:"at_ns"`     // the same, exact
	Text     bool    `json:"text"`      // the event carried generated text
	Tokens   int     `json:"tokens"`    // server-reported, else 0
	ServerNS int64   `json:"server_ns"` // the mock's write stamp, else 0
}

// answerOptions are the per-request choices that shape the answer beyond
// the record.
type answerOptions struct {
	samples      *metrics.Options
	keepText     bool
	keepTimeline bool
	maxText      int
	red          *redact.Redactor
}

// newAnswer is the answer of a request: rec is its record (already redacted:
// see toRecord), raw the engine's record for what the records format does
// not keep (text, timeline, counts a script reads).
func newAnswer(rec *records.Record, raw *stream.Record, o *answerOptions) *Answer {
	t := metrics.Tags(rec)
	a := &Answer{Version: AnswerVersion, OK: rec.OK(), Status: rec.Status, ID: rec.ID,
		Tags:    AnswerTags{Model: t[0], API: t[1], Status: t[2], Error: t[3], TokenSource: t[4]},
		Samples: metrics.FromRecord(rec, o.samples),
		Model:   rec.Model, API: rec.API, TokenSource: rec.TokenSource,
		HeadersMS: msOf(rec.HeadersNS), FirstEventMS: msOf(rec.FirstEventNS),
		OutputTokens: rec.OutputTokens, InputTokens: rec.InputTokens, ReasoningTokens: rec.ReasoningTokens,
		CachedInputTokens: rec.CachedInputTokens, CacheCreationInputTokens: rec.CacheCreationInputTokens,
		Events: rec.Events, TextEvents: raw.TextEvents, Bytes: rec.Bytes, ToolCalls: raw.ToolCalls,
		HasReasoning: raw.HasReasoning, ConnReused: rec.Stages != nil && rec.Stages.Reused,
		Kind: rec.Kind, Batch: rec.Batch, Results: raw.Results,
	}
	if a.Samples == nil {
		a.Samples = []metrics.Series{}
	}
	if rec.Error != nil {
		a.Error = &AnswerError{Kind: rec.Error.Kind, Message: rec.Error.Message}
	}
	if rec.Finish != "" {
		a.FinishReason = &rec.Finish
	}
	if rec.StartNS != 0 {
		a.StartUnixNS = &rec.StartNS
	}
	if sv := rec.Server; sv != nil {
		s := &AnswerServer{PrefillMS: msIfSet(sv.PrefillNS), DecodeMS: msIfSet(sv.DecodeNS),
			TotalMS: msIfSet(sv.TotalNS), LoadMS: msIfSet(sv.LoadNS),
			PromptTokens: sv.PromptTokens, OutputTokens: sv.OutputTokens}
		if tpot, ok := metrics.ServerTPOTNS(sv); ok {
			s.TPOTMS = msIfSet(tpot)
		}
		a.Server = s
	}
	for i, t := range rec.Tools { // the record keeps no arguments (generated text): the engine's do
		var args string
		if i < len(raw.Tools) {
			args = o.red.String(raw.Tools[i].Arguments)
		}
		a.Tools = append(a.Tools, AnswerTool{ID: t.ID, Name: t.Name, Arguments: args,
			FirstArgMS: msOf(t.FirstArgNS), ParseError: t.ParseError})
	}
	if o.keepText {
		text, cutText := truncate.UTF8(o.red.String(raw.Text), o.maxText)
		reasoning, cutReasoning := truncate.UTF8(o.red.String(raw.Reasoning), o.maxText)
		cut := cutText || cutReasoning
		a.Text, a.Reasoning, a.TextTruncated = &text, &reasoning, &cut
	}
	if o.keepTimeline {
		a.Timeline = make([]EventTime, len(raw.Timeline))
		for i, e := range raw.Timeline {
			a.Timeline[i] = EventTime{AtMS: metrics.MS(int64(e.At)), AtNS: int64(e.At), Text: e.Text, Tokens: e.Tokens, ServerNS: e.ServerNS}
		}
	}
	return a
}

// appendAnswer appends the answer's JSON and a newline.
func appendAnswer(b []byte, a *Answer) []byte {
	out, err := json.Marshal(a)
	if err != nil { // only a non-finite float can fail; the samples never hold one
		return appendRefusal(b, KindInternal, "helper: cannot encode the answer: "+err.Error())
	}
	b = append(b, out...)
	return append(b, '\n')
}

// appendRefusal appends a helper-level refusal: {"error":{"kind","message"}}.
func appendRefusal(b []byte, kind, msg string) []byte {
	out, _ := json.Marshal(Refusal{Error: AnswerError{Kind: kind, Message: msg}})
	b = append(b, out...)
	return append(b, '\n')
}

func msOf(ns *int64) *float64 {
	if ns == nil {
		return nil
	}
	v := metrics.MS(*ns)
	return &v
}

// msIfSet is a reported duration in ms; nil when zero (not reported).
func msIfSet(ns int64) *float64 {
	if ns == 0 {
		return nil
	}
	return msOf(&ns)
}

// MS formats d as the helper's answers do: milliseconds rounded to the
// microsecond.
func MS(d time.Duration) float64 { return metrics.MS(int64(d)) }

// Values are the answer's samples of a metric (nil: none).
func (a *Answer) Values(metric string) []float64 {
	for _, s := range a.Samples {
		if s.Metric == metric {
			return s.Values
		}
	}
	return nil
}

// Value is the answer's one sample of a metric; false when it has none.
func (a *Answer) Value(metric string) (float64, bool) {
	if v := a.Values(metric); len(v) > 0 {
		return v[0], true
	}
	return 0, false
}
