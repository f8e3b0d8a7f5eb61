// Package records is the format of the per-request records the helper writes
// with --records FILE, and its reader: the contract between the helper, which
// writes them, and analyze, which reads them (docs/records.md). It depends
// only on internal/filelock (the writer's lock), so analyze can import it
// without the k6 side's code.
//
// A records file is JSON Lines, optionally gzip-compressed: a Header line, one
// Record line per request in the order the requests ended, and a Trailer line
// when the writer was closed (a file without it was cut short: the helper was
// killed, or is still running).
package records

// Format is the Header's Format: how a reader recognises a records file.
const Format = "llmstream-records"

// Version is the V of every line this package writes. It changes when a field
// changes meaning or goes away; new fields do not change it.
const Version = 1

// Header is the first line of a records file.
type Header struct {
	Format string `json:"format"` // always Format
	V      int    `json:"v"`
	// CreatedNS is when the writer opened the file (unix ns).
	CreatedNS int64 `json:"created_ns"`
	// Writer names the program that wrote the file, with its version.
	Writer string `json:"writer,omitempty"`
	// Instance tells apart the writers of one run (host name and process id).
	Instance string `json:"instance,omitempty"`
}

// Trailer is the last line of a records file that was closed properly.
type Trailer struct {
	End bool `json:"end"` // always true
	V   int  `json:"v"`
	// Records is the number of Record lines written.
	Records int64 `json:"records"`
	// Dropped is the number of requests not written because the writer's
	// queue was full (the helper never blocks a stream to write a record).
	Dropped int64 `json:"dropped"`
	// Lost is the number of records that a write error lost.
	Lost int64 `json:"lost,omitempty"`
}

// Record is one request as the helper streamed it. Durations are integer
// nanoseconds from StartNS on the helper's monotonic clock; a moment that did
// not happen is absent (nil).
type Record struct {
	V int `json:"v"`
	// ID is the request id the module gave the request: the same id is the
	// llm_request_id metadata of the request's samples in k6's JSON output.
	// Empty when the caller gave none.
	ID string `json:"id,omitempty"`
	// Tags are the script's tags of the request (the Client's and the call's);
	// the module's own tags (model, api, status, error, token_source) follow
	// from the fields below.
	Tags map[string]string `json:"tags,omitempty"`
	// Warmup is true for a request the module does not record in k6 (the
	// Client's warmup option).
	Warmup bool `json:"warmup,omitempty"`
	// Unanswered is true when the caller went away before the answer (the k6
	// side stopped): k6 recorded nothing for it.
	Unanswered bool `json:"unanswered,omitempty"`

	StartNS int64 `json:"start_ns"` // unix ns, just before the request was sent
	// ScheduledNS is when the load generator meant to send the request (unix
	// ns): open-loop load (the module's arrivals() and replay()) knows it.
	// Absent (0) for closed-loop load. StartNS − ScheduledNS is the send lag.
	ScheduledNS int64  `json:"scheduled_ns,omitempty"`
	API         string `json:"api"` // the dialect decoded
	Model       string `json:"model"`
	Status      int    `json:"status"` // HTTP status, 0 when no response arrived
	Error       *Error `json:"error,omitempty"`
	Finish      string `json:"finish,omitempty"` // the finish reason
	// Kind is "embed" or "rerank" for an embeddings or rerank call (API is
	// then its dialect: openai-embeddings, cohere-embed, cohere-rerank,
	// rerank); absent for a generation stream. A call has no TTFT, TPOT or
	// text events; E2ENS is its duration, InputTokens the server's count.
	Kind string `json:"kind,omitempty"`
	// Batch is a call's inputs (embed) or documents (rerank).
	Batch int `json:"batch,omitempty"`

	HeadersNS    *int64 `json:"headers_ns,omitempty"`
	FirstEventNS *int64 `json:"first_event_ns,omitempty"`
	TTFTNS       *int64 `json:"ttft_ns,omitempty"`
	TTFTAnswerNS *int64 `json:"ttft_answer_ns,omitempty"`
	TPOTNS       *int64 `json:"tpot_ns,omitempty"`
	E2ENS        int64  `json:"e2e_ns"`

	// Stages split TTFT; present when the request had a response.
	Stages *Stages `json:"stages,omitempty"`

	// TextNS are the text-bearing events' times, delta-encoded: TextNS[0] is
	// the first text event's offset from the start (TTFT), TextNS[i] the gap
	// from text event i−1 to text event i (the ITL gaps).
	TextNS []int64 `json:"text_ns,omitempty"`
	// TextTokens, when the server reported per-event token counts, is how
	// many output tokens each text event carried (same length as TextNS);
	// absent when unknown (one token per event is then assumed).
	TextTokens []int `json:"text_tokens,omitempty"`

	OutputTokens             int    `json:"output_tokens"`
	InputTokens              int    `json:"input_tokens"`
	ReasoningTokens          int    `json:"reasoning_tokens,omitempty"`
	CachedInputTokens        int    `json:"cached_input_tokens,omitempty"`
	CacheCreationInputTokens int    `json:"cache_creation_input_tokens,omitempty"`
	TokenSource              string `json:"token_source"` // "usage" or "events"
	// NegativeUsage is true when the server's usage report gave a negative
	// token count, kept here as 0 (the figure k6 gets). An optional field
	// added in version 1.
	NegativeUsage bool  `json:"negative_usage,omitempty"`
	Events        int   `json:"events"`
	Bytes         int64 `json:"bytes"`

	// Server is the server's own account of its time (ollama, llama.cpp).
	Server *Server `json:"server,omitempty"`

	// ServerWaiting and ServerRunning are the server's requests waiting
	// (queued) and running as its Prometheus /metrics said in the latest
	// scrape before the request started (the helper's --scrape); absent
	// when nothing was scraped, the latest scrape failed, or the server
	// exports no such metric.
	ServerWaiting *float64 `json:"server_waiting,omitempty"`
	ServerRunning *float64 `json:"server_running,omitempty"`

	// GPU is the GPUs' state as NVIDIA's DCGM exporter said in the latest
	// scrape before the request started (the helper's --gpu-metrics);
	// absent when nothing was scraped or the page had none of its metrics.
	GPU *GPU `json:"gpu,omitempty"`

	// ClientLagNS is the client path's own lateness while the request ran:
	// the p99 of the helper's loopback-probe lags while it ran (the
	// llm_client_lag sample); absent when the probes did not run.
	ClientLagNS *int64 `json:"client_lag_ns,omitempty"`
	// CPUIdle is the idle share (0..1) of the load-generator machine's CPUs
	// while the request ran, from the helper's CPU sampler (the
	// llm_client_cpu_idle sample); absent off Linux and for a request
	// shorter than the sampler's interval.
	CPUIdle *float64 `json:"cpu_idle,omitempty"`

	// Tools are the tool calls the model made, in the order they began
	// (optional; absent for an answer without tool calls). ToolsDropped
	// counts calls beyond the engine's cap that are not listed.
	Tools        []ToolCall `json:"tools,omitempty"`
	ToolsDropped int        `json:"tools_dropped,omitempty"`

	// TokenAudit is the tokenizer's count of the streamed text beside the
	// server's usage report, when the Client asked for the audit
	// (tokenAudit); absent otherwise.
	TokenAudit *TokenAudit `json:"token_audit,omitempty"`

	// OutputCheck is the helper's check of a structured answer, when the
	// request asked for JSON output (response_format, text.format,
	// output_config.format, responseMimeType, ollama format); absent
	// otherwise. An optional field added in version 1.
	OutputCheck *OutputCheck `json:"output_check,omitempty"`

	// Abandoned is set when the client left before the answer ended, as a
	// user who closes the tab (the module's abandon option): the helper
	// cancelled the request and stopped reading. Such a request has no
	// Error (it did not fail) and is never good (metrics.SLO.Met); E2ENS
	// is Abandoned.AtNS. An optional field added in version 1.
	Abandoned *Abandoned `json:"abandoned,omitempty"`
}

// Abandoned is where a request was abandoned.
type Abandoned struct {
	// AtNS is the request's start → the moment the helper cancelled it.
	AtNS int64 `json:"at_ns"`
	// Tokens is the output tokens received by then.
	Tokens int `json:"tokens"`
}

// OutputCheck is one structured answer's check: whether its text parses as
// JSON and, when the request gave a schema, validates against it.
type OutputCheck struct {
	// Schema is true when the request gave a JSON schema.
	Schema bool `json:"schema,omitempty"`
	// Invalid is why the answer is not what was asked for: "not_json" (the
	// text does not parse), "schema" (it does not validate), "tool_calls"
	// (the answer came as tool calls, not text), "too_long" (over the
	// check's size limit, so not checked: counted invalid, failing closed);
	// "" for a valid answer.
	Invalid string `json:"invalid,omitempty"`
	// Detail says what is wrong (the parse error, the schema's error at its
	// JSON pointer); never the text itself.
	Detail string `json:"detail,omitempty"`
}

// ToolCall is one tool call of a request's answer. Its arguments are
// generated text, which records never keep (the helper's answer does).
type ToolCall struct {
	ID   string `json:"id,omitempty"` // the API's call id; Gemini and ollama give none
	Name string `json:"name"`
	// FirstArgNS is request start → the read that brought the call's first
	// argument piece; absent when none came.
	FirstArgNS *int64 `json:"first_arg_ns,omitempty"`
	// ParseError is why Arguments is not a JSON object: "invalid_json",
	// "not_object" or "too_large"; absent when it is one (or is empty).
	ParseError string `json:"parse_error,omitempty"`
	// Truncated is true when the id or the name was over the engine's bound
	// (stream.MaxToolIDBytes, MaxToolNameBytes: 256 bytes) and was cut there.
	// An optional field added in version 1.
	Truncated bool `json:"truncated,omitempty"`
}

// TokenAudit is one request's token-count audit: the streamed answer and
// reasoning text counted with a tokenizer, to compare with the server's
// usage report (OutputTokens with TokenSource "usage").
type TokenAudit struct {
	// Tokenizer is the encoding name or tokenizer.json path counted with.
	Tokenizer string `json:"tokenizer"`
	// Counted is the tokenizer's count of the text (answer + reasoning).
	Counted int `json:"counted"`
	// Tolerance is the share of Counted by which usage may differ before the
	// request is a mismatch (at least 1 token either way).
	Tolerance float64 `json:"tolerance"`
	// Error says why the text was not counted (no usage report, tool-call
	// arguments, text over the audit's size limit, a tokenizer failure);
	// Counted is then 0 and the request is not judged.
	Error string `json:"error,omitempty"`
}

// GPU is one scrape of the DCGM exporter, over all the GPUs on the page: a
// figure the page did not have is absent.
type GPU struct {
	// UtilPct is the mean DCGM_FI_DEV_GPU_UTIL (%).
	UtilPct *float64 `json:"util_pct,omitempty"`
	// MemUsedMiB is the sum of DCGM_FI_DEV_FB_USED (MiB).
	MemUsedMiB *float64 `json:"mem_used_mib,omitempty"`
	// PowerW is the sum of DCGM_FI_DEV_POWER_USAGE (W).
	PowerW *float64 `json:"power_w,omitempty"`
	// SMClockMHz is the mean DCGM_FI_DEV_SM_CLOCK (MHz).
	SMClockMHz *float64 `json:"sm_clock_mhz,omitempty"`
	// GPUs is how many GPUs the page listed.
	GPUs int `json:"gpus"`
}

// Error is a failed request's error kind and (redacted) message.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
}

// Stages split TTFT: start → connection ready (ConnectNS, 0 when reused) →
// request written (SendNS) → response headers (WaitNS) → first event
// (FirstEventNS) → first text (FirstTokenNS). For a request with a TTFT they
// add up to it exactly.
type Stages struct {
	ConnectNS    int64 `json:"connect_ns"`
	SendNS       int64 `json:"send_ns"`
	WaitNS       int64 `json:"wait_ns"`
	FirstEventNS int64 `json:"first_event_ns"`
	FirstTokenNS int64 `json:"first_token_ns"`
	Reused       bool  `json:"reused,omitempty"`
	DNSNS        int64 `json:"dns_ns,omitempty"`
	TLSNS        int64 `json:"tls_ns,omitempty"`
}

// Sum is the stages' total.
func (s *Stages) Sum() int64 {
	return s.ConnectNS + s.SendNS + s.WaitNS + s.FirstEventNS + s.FirstTokenNS
}

// Server is what the server reported of its own work; zero: not reported.
type Server struct {
	PrefillNS    int64 `json:"prefill_ns,omitempty"`
	DecodeNS     int64 `json:"decode_ns,omitempty"`
	TotalNS      int64 `json:"total_ns,omitempty"`
	LoadNS       int64 `json:"load_ns,omitempty"`
	PromptTokens int   `json:"prompt_tokens,omitempty"`
	OutputTokens int   `json:"output_tokens,omitempty"`
}

// OK reports whether the request succeeded.
func (r *Record) OK() bool { return r.Error == nil }

// ErrorKind is the error kind, "" for a successful request.
func (r *Record) ErrorKind() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Kind
}
