package helper

import "github.com/llmstream/xk6-llmstream/internal/redact"

// AnswerVersion is the Version of the answers this helper writes. It changes
// when a field changes meaning or goes away; new fields do not change it.
const AnswerVersion = 1

// Redacted replaces a secret in any string the helper returns or logs: the
// project's one redaction marker (the engine's messages use it too).
const Redacted = redact.Marker

// Answer is the body of a 200 answer to POST /v1/stream: the timed record of
// one stream, as llmstream.js reads it. It is the schema of that answer
// (docs/helper-api.md documents each field; a test checks the list): the
// helper writes it with a fast encoder (encode.go) whose bytes decode to
// exactly what encoding/json writes for the Answer of the same record.
//
// Durations are milliseconds rounded to the microsecond; a pointer is nil
// (JSON null) when the moment did not happen.
type Answer struct {
	Version         int          `json:"version"`
	OK              bool         `json:"ok"`
	API             string       `json:"api"`
	Model           string       `json:"model"`
	Status          int          `json:"status"`
	Error           *AnswerError `json:"error"`
	StartUnixNS     *int64       `json:"start_unix_ns"`
	HeadersMS       *float64     `json:"headers_ms"`
	FirstEventMS    *float64     `json:"first_event_ms"`
	TTFTMS          *float64     `json:"ttft_ms"`
	TTFTAnswerMS    *float64     `json:"ttft_answer_ms"`
	TPOTMS          *float64     `json:"tpot_ms"`
	E2EMS           *float64     `json:"e2e_ms"`
	ITLMS           []float64    `json:"itl_ms"`     // nil with itl: false
	ITLTokens       []int        `json:"itl_tokens"` // nil when unknown or itl: false
	OutputTokens    int          `json:"output_tokens"`
	InputTokens     int          `json:"input_tokens"`
	ReasoningTokens int          `json:"reasoning_tokens"`
	TokenSource     string       `json:"token_source"`
	Events          int          `json:"events"`
	TextEvents      int          `json:"text_events"`
	Bytes           int64        `json:"bytes"`
	FinishReason    *string      `json:"finish_reason"`
	ToolCalls       int          `json:"tool_calls"`
	HasReasoning    bool         `json:"has_reasoning"`
	// Prompt caching, from the usage report (0 when not reported).
	CachedInputTokens        int `json:"cached_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	// The server's own timings (ollama's final chunk, llama.cpp's timings):
	// all null when the server reported none; a duration is also null when
	// that one was not reported (zero).
	ServerPrefillMS    *float64 `json:"server_prefill_ms"`
	ServerDecodeMS     *float64 `json:"server_decode_ms"`
	ServerTotalMS      *float64 `json:"server_total_ms"`
	ServerLoadMS       *float64 `json:"server_load_ms"`
	ServerTPOTMS       *float64 `json:"server_tpot_ms"`
	ServerPromptTokens *int     `json:"server_prompt_tokens"`
	ServerOutputTokens *int     `json:"server_output_tokens"`
	ClientLagMS        *float64 `json:"client_lag_ms"` // null when the canary never ran
	ITLZeroGaps        int      `json:"itl_zero_gaps"`
	// The stages of TTFT (stream.Stages): null without a TTFT; they add up
	// to ttft_ms up to the rounding of each to the microsecond.
	StageConnectMS    *float64 `json:"stage_connect_ms"`
	StageSendMS       *float64 `json:"stage_send_ms"`
	StageWaitMS       *float64 `json:"stage_wait_ms"`
	StageFirstEventMS *float64 `json:"stage_first_event_ms"`
	StageFirstTokenMS *float64 `json:"stage_first_token_ms"`
	ConnReused        bool     `json:"conn_reused"`

	Text          *string     `json:"text,omitempty"`           // keep_text only
	Reasoning     *string     `json:"reasoning,omitempty"`      // keep_text only
	TextTruncated *bool       `json:"text_truncated,omitempty"` // keep_text only
	Timeline      []EventTime `json:"timeline,omitzero"`        // keep_timeline only (then never nil)
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
