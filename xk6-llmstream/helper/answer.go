package helper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/internal/truncate"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// AnswerVersion is the Version of the answers this helper writes. It changes
// when a field changes meaning or goes away; new fields do not change it.
// Version 2 carried the request's k6 samples ready to add (metrics.FromRecord)
// instead of the timings the module derived them from. Version 3 is compact,
// for k6's CPU (docs/helper-api.md): samples are an object {metric: value or
// values}, their series tags are in sample_tags, the top-level model, api and
// token_source (the tags' duplicates) are gone, and nulls, zeros and false
// are omitted.
const AnswerVersion = 3

// Redacted replaces a secret in any string the helper returns or logs: the
// project's one redaction marker (the engine's messages use it too).
const Redacted = redact.Marker

// Answer is the body of the helper's answer to POST /v1/stream: one stream's
// k6 samples, ready to add with the tags the answer gives, and what a script
// reads of the request (docs/helper-api.md). It is written with
// encoding/json from this type only (AnswerSamples writes its own object).
type Answer struct {
	Version int          `json:"version"`
	OK      bool         `json:"ok"`
	Status  int          `json:"status,omitempty"` // the upstream's HTTP status, absent when none arrived
	Error   *AnswerError `json:"error,omitempty"`
	// ID is the request id the module gave (its llm_request_id).
	ID string `json:"id"`
	// Tags are the module's own tags of the samples (metrics.ModuleTags);
	// the module adds the script's tags under them.
	Tags AnswerTags `json:"tags"`
	// Samples are the request's k6 samples (metrics.FromRecord), in the
	// order to add them; times in milliseconds rounded to the microsecond.
	// Their series tags are written apart, in SampleTags; UnmarshalJSON puts
	// them back.
	Samples AnswerSamples `json:"samples"`
	// SampleTags are the tags of the samples that have their own (the
	// reason of llm_output_invalid and of llm_tool_call_parse_failures): by
	// metric, one tag set per value of Samples' entry; nil when none has.
	SampleTags map[string][]map[string]string `json:"sample_tags,omitempty"`

	// Model, API and TokenSource are not written (Tags has them); Answer's
	// UnmarshalJSON sets them from Tags for Go readers.
	Model        string   `json:"-"`
	API          string   `json:"-"`
	TokenSource  string   `json:"-"`
	FinishReason *string  `json:"finish_reason,omitempty"`
	StartUnixNS  *int64   `json:"start_unix_ns,omitempty"`
	HeadersMS    *float64 `json:"headers_ms,omitempty"`
	FirstEventMS *float64 `json:"first_event_ms,omitempty"`

	OutputTokens             int   `json:"output_tokens,omitempty"`
	InputTokens              int   `json:"input_tokens,omitempty"`
	ReasoningTokens          int   `json:"reasoning_tokens,omitempty"`
	CachedInputTokens        int   `json:"cached_input_tokens,omitempty"`
	CacheCreationInputTokens int   `json:"cache_creation_input_tokens,omitempty"`
	Events                   int   `json:"events,omitempty"`
	TextEvents               int   `json:"text_events,omitempty"`
	Bytes                    int64 `json:"bytes,omitempty"`
	ToolCalls                int   `json:"tool_calls,omitempty"`
	HasReasoning             bool  `json:"has_reasoning,omitempty"`
	ConnReused               bool  `json:"conn_reused,omitempty"`
	// Server is the server's own account of its work (ollama, llama.cpp);
	// absent when it gave none.
	Server *AnswerServer `json:"server,omitempty"`
	// Kind, Batch and Results describe an embeddings or rerank call
	// ("embed" or "rerank"; inputs or documents sent; vectors or ranked
	// documents answered); absent for a stream.
	Kind    string `json:"kind,omitempty"`
	Batch   int    `json:"batch,omitempty"`
	Results int    `json:"results,omitempty"`

	// Abandoned is set when the request was abandoned (the stream request's
	// abandon point was reached): when, from its start, and the output
	// tokens received by then. Absent otherwise. An optional field added in
	// version 3.
	Abandoned *AnswerAbandoned `json:"abandoned,omitempty"`

	// Tools are the answer's tool calls (absent when it made none), for a
	// script to run them (the module's Agent).
	Tools []AnswerTool `json:"tools,omitempty"`

	Text          *string     `json:"text,omitempty"`           // keep_text only
	Reasoning     *string     `json:"reasoning,omitempty"`      // keep_text only
	TextTruncated *bool       `json:"text_truncated,omitempty"` // keep_text only
	Timeline      []EventTime `json:"timeline,omitzero"`        // keep_timeline only (then never nil)
}

// AnswerAbandoned is where an abandoned request was left (records.Abandoned
// in milliseconds).
type AnswerAbandoned struct {
	AtMS   float64 `json:"at_ms"`
	Tokens int     `json:"tokens"`
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
	FirstArgMS *float64 `json:"first_arg_ms,omitempty"` // request start → first argument piece; absent when none came
	ParseError string   `json:"parse_error,omitempty"`  // absent when the arguments are a JSON object (or empty)
	Truncated  bool     `json:"truncated,omitempty"`    // the id or name was over 256 bytes and was cut (stream.MaxToolNameBytes); optional, added in version 3
}

// AnswerServer is what the server reported of its own work; a duration or
// count is absent when it was not reported.
type AnswerServer struct {
	PrefillMS    *float64 `json:"prefill_ms,omitempty"`
	DecodeMS     *float64 `json:"decode_ms,omitempty"`
	TotalMS      *float64 `json:"total_ms,omitempty"`
	LoadMS       *float64 `json:"load_ms,omitempty"`
	TPOTMS       *float64 `json:"tpot_ms,omitempty"`
	PromptTokens int      `json:"prompt_tokens,omitempty"`
	OutputTokens int      `json:"output_tokens,omitempty"`
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
	a.SampleTags = a.Samples.Tags()
	if rec.Error != nil {
		a.Error = &AnswerError{Kind: rec.Error.Kind, Message: rec.Error.Message}
	}
	if rec.Finish != "" {
		a.FinishReason = &rec.Finish
	}
	if rec.StartNS != 0 {
		a.StartUnixNS = &rec.StartNS
	}
	if ab := rec.Abandoned; ab != nil {
		a.Abandoned = &AnswerAbandoned{AtMS: metrics.MS(ab.AtNS), Tokens: ab.Tokens}
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
			FirstArgMS: msOf(t.FirstArgNS), ParseError: t.ParseError, Truncated: t.Truncated})
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

// UnmarshalJSON reads an answer as Go readers (tests) want it: Model, API
// and TokenSource from Tags, and each value that has tags in SampleTags as a
// series of its own with them (what metrics.FromRecord makes).
func (a *Answer) UnmarshalJSON(b []byte) error {
	type plain Answer // no methods: the default decoding
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	samples, err := p.Samples.withTags(p.SampleTags)
	if err != nil {
		return err
	}
	*a = Answer(p)
	a.Samples = samples
	a.Model, a.API, a.TokenSource = a.Tags.Model, a.Tags.API, a.Tags.TokenSource
	return nil
}

// AnswerSamples are an answer's samples, written as one JSON object in their
// order: {"llm_ttft": 20.512, "llm_itl": [8.1, 7.9], ...}, a metric's value a
// number when it has one, else an array (one k6 sample each). A JSON object
// parses faster in k6's JavaScript than an array of {metric, values}
// objects, and a lone number faster than a one-element array
// (docs/helper-api.md). The series of one metric are one entry; their tags
// are not written here (see Tags).
type AnswerSamples []metrics.Series

// MarshalJSON writes the samples object; times are as encoding/json writes
// a float64, and a non-finite value is an error.
func (s AnswerSamples) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 24*len(s)+2)
	b = append(b, '{')
	var vals []float64
	for i, x := range s {
		if s.seenBefore(i) {
			continue
		}
		vals = append(vals[:0], x.Values...)
		for _, y := range s[i+1:] {
			if y.Metric == x.Metric {
				vals = append(vals, y.Values...)
			}
		}
		key, err := json.Marshal(x.Metric)
		if err != nil {
			return nil, err
		}
		var v []byte
		if len(vals) == 1 {
			v, err = json.Marshal(vals[0])
		} else {
			v, err = json.Marshal(vals)
		}
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", x.Metric, err)
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, key...), ':'), v...)
	}
	return append(b, '}'), nil
}

// seenBefore reports whether a series before s[i] has s[i]'s metric.
func (s AnswerSamples) seenBefore(i int) bool {
	for _, y := range s[:i] {
		if y.Metric == s[i].Metric {
			return true
		}
	}
	return false
}

// Tags are the samples' own tags as an answer's sample_tags: for each
// metric with a tagged series, one tag set per value in the order
// MarshalJSON writes them ({} for an untagged value); nil when no series has
// tags.
func (s AnswerSamples) Tags() map[string][]map[string]string {
	var out map[string][]map[string]string
	for _, x := range s {
		if x.Tags == nil {
			continue
		}
		if _, done := out[x.Metric]; done {
			continue
		}
		if out == nil {
			out = map[string][]map[string]string{}
		}
		var tags []map[string]string
		for _, y := range s {
			if y.Metric != x.Metric {
				continue
			}
			t := y.Tags
			if t == nil {
				t = map[string]string{}
			}
			for range y.Values {
				tags = append(tags, t)
			}
		}
		out[x.Metric] = tags
	}
	return out
}

// UnmarshalJSON reads the samples object in its order; a value is a number
// or an array of numbers.
func (s *AnswerSamples) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("answer samples: want a JSON object of metric: value or [values], got %.40s", b)
	}
	out := AnswerSamples{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("answer samples: %w", err)
		}
		metric, _ := t.(string) // an object's keys are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("answer samples: %s: %w", metric, err)
		}
		var vals []float64
		if len(raw) > 0 && raw[0] == '[' {
			err = json.Unmarshal(raw, &vals)
		} else {
			vals = make([]float64, 1)
			err = json.Unmarshal(raw, &vals[0])
		}
		if err != nil {
			return fmt.Errorf("answer samples: %s: want a number or an array of numbers, got %.40s", metric, raw)
		}
		out = append(out, metrics.Series{Metric: metric, Values: vals})
	}
	*s = out
	return nil
}

// withTags splits each metric that has tags into one series per value with
// its tags (an empty tag set: none), as metrics.FromRecord makes them.
func (s AnswerSamples) withTags(tags map[string][]map[string]string) (AnswerSamples, error) {
	if len(tags) == 0 {
		return s, nil
	}
	out := make(AnswerSamples, 0, len(s))
	for _, x := range s {
		t, ok := tags[x.Metric]
		if !ok {
			out = append(out, x)
			continue
		}
		if len(t) != len(x.Values) {
			return nil, fmt.Errorf("answer sample_tags: %s has %d tag sets for %d values", x.Metric, len(t), len(x.Values))
		}
		for i, v := range x.Values {
			var tv map[string]string
			if len(t[i]) > 0 {
				tv = t[i]
			}
			out = append(out, metrics.Series{Metric: x.Metric, Values: []float64{v}, Tags: tv})
		}
	}
	return out, nil
}
