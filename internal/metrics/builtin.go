package metrics

import "strings"

// Type is a k6 metric type.
type Type string

// The k6 metric types the module uses.
const (
	Trend   Type = "trend"
	Counter Type = "counter"
	Rate    Type = "rate"
)

// Metric is one of the module's k6 metrics.
type Metric struct {
	Name string
	Type Type
	// Time is true for Trends of milliseconds (k6's isTime).
	Time bool
}

// Prefix starts the name of every metric of the module (and of its
// metadata keys): a report of no named metrics takes those with it.
const Prefix = "llm_"

// The names of the module's metrics: the contract with thresholds, analyze
// and dashboards. llmstream.js declares the same list (a test compares them).
const (
	TTFT              = "llm_ttft"
	TTFTAnswer        = "llm_ttft_answer"
	TPOT              = "llm_tpot"
	ITL               = "llm_itl"
	ITLMax            = "llm_itl_max"
	E2E               = "llm_e2e"
	TTFTScheduled     = "llm_ttft_scheduled"
	E2EScheduled      = "llm_e2e_scheduled"
	OutputTokens      = "llm_output_tokens"
	InputTokens       = "llm_input_tokens"
	CachedInputTokens = "llm_cached_input_tokens"
	RequestsFailed    = "llm_requests_failed"
	RequestsAbandoned = "llm_requests_abandoned"
	ServerPrefill     = "llm_server_prefill"
	ServerTPOT        = "llm_server_tpot"
	StageConnect      = "llm_stage_connect"
	StageSend         = "llm_stage_send"
	StageWait         = "llm_stage_wait"
	StageFirstEvent   = "llm_stage_first_event"
	StageFirstToken   = "llm_stage_first_token"
	ClientLag         = "llm_client_lag"
	ClientCPUIdle     = "llm_client_cpu_idle"
	ITLZeroGaps       = "llm_itl_zero_gaps"
	SLOMet            = "llm_slo_met"
	// Fluidity and DeadlineMet are a Client's slo.deadline per request
	// (deadline.go): the fraction of token deadlines met (Etalon) and
	// whether every token met its deadline (arXiv 2410.14257).
	Fluidity             = "llm_fluidity"
	DeadlineMet          = "llm_deadline_met"
	Cost                 = "llm_cost"
	OutputLengthMismatch = "llm_output_length_mismatch"
	ArrivalsDropped      = "llm_arrivals_dropped"
	ArrivalLateness      = "llm_arrival_lateness"
	OutputTokenMismatch  = "llm_output_token_mismatch"
	OutputInvalid        = "llm_output_invalid"

	// Tool calls and agent loops (docs/agents.md).
	ToolCalls             = "llm_tool_calls"
	ToolCallFirstArg      = "llm_tool_call_first_arg"
	ToolCallParseFailures = "llm_tool_call_parse_failures"
	AgentTaskE2E          = "llm_agent_task_e2e"
	AgentTaskSteps        = "llm_agent_task_steps"
	AgentTaskCompleted    = "llm_agent_task_completed"

	// Embeddings and rerank calls: their own names, so that they never mix
	// with generation's.
	EmbedDuration     = "llm_embed_duration"
	EmbedInputTokens  = "llm_embed_input_tokens"
	EmbedBatchSize    = "llm_embed_batch_size"
	EmbedFailed       = "llm_embed_failed"
	RerankDuration    = "llm_rerank_duration"
	RerankInputTokens = "llm_rerank_input_tokens"
	RerankDocuments   = "llm_rerank_documents"
	RerankFailed      = "llm_rerank_failed"
)

// Builtin lists every metric the module declares, in the order a request's
// samples are added.
var Builtin = []Metric{
	{TTFT, Trend, true},
	{TTFTAnswer, Trend, true},
	{TPOT, Trend, true},
	{E2E, Trend, true},
	{TTFTScheduled, Trend, true},
	{E2EScheduled, Trend, true},
	{ITL, Trend, true},
	{ITLMax, Trend, true},
	{ITLZeroGaps, Counter, false},
	{OutputTokens, Counter, false},
	{InputTokens, Counter, false},
	{CachedInputTokens, Counter, false},
	{ServerPrefill, Trend, true},
	{ServerTPOT, Trend, true},
	{RequestsFailed, Rate, false},
	{RequestsAbandoned, Rate, false},
	{StageConnect, Trend, true},
	{StageSend, Trend, true},
	{StageWait, Trend, true},
	{StageFirstEvent, Trend, true},
	{StageFirstToken, Trend, true},
	{ClientLag, Trend, true},
	{ClientCPUIdle, Trend, false},
	{SLOMet, Rate, false},
	{Fluidity, Trend, false},
	{DeadlineMet, Rate, false},
	{Cost, Counter, false},
	{OutputLengthMismatch, Counter, false},
	{ArrivalsDropped, Counter, false},
	{ArrivalLateness, Trend, true},
	{OutputTokenMismatch, Rate, false},
	{OutputInvalid, Rate, false},
	{ToolCalls, Counter, false},
	{ToolCallFirstArg, Trend, true},
	{ToolCallParseFailures, Counter, false},
	// Per task of an Agent: made by llmstream.js, the only part that sees
	// a whole task (its steps are separate requests).
	{AgentTaskE2E, Trend, true},
	{AgentTaskSteps, Trend, false},
	{AgentTaskCompleted, Rate, false},
	{EmbedDuration, Trend, true},
	{EmbedInputTokens, Counter, false},
	{EmbedBatchSize, Trend, false},
	{EmbedFailed, Rate, false},
	{RerankDuration, Trend, true},
	{RerankInputTokens, Counter, false},
	{RerankDocuments, Trend, false},
	{RerankFailed, Rate, false},
}

// IsCall reports whether a metric is one of the embeddings and rerank
// calls' (llm_embed_*, llm_rerank_*), which analyze summarizes apart from
// generation's.
func IsCall(name string) bool {
	return strings.HasPrefix(name, Prefix+"embed_") || strings.HasPrefix(name, Prefix+"rerank_")
}

// Lookup finds a builtin metric by name.
func Lookup(name string) (Metric, bool) {
	for _, m := range Builtin {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// The metadata keys the module sets on a request's samples.
const (
	// RequestIDMetadata carries the request's id on every sample of the
	// request: a random per-VU prefix, the VU and a sequence number
	// (llmstream.js), unique across runs and load generators.
	RequestIDMetadata = "llm_request_id"
	// EntryIDMetadata carries the dataset entry's id of the request.
	EntryIDMetadata = "llm_entry_id"
)

// The tags the module sets on every sample of a request; they win over the
// script's tags of the same name.
const (
	TagModel       = "model"
	TagAPI         = "api"
	TagStatus      = "status"
	TagError       = "error"
	TagTokenSource = "token_source"
)

// The tags of particular samples: TagStep is on every sample of an Agent's
// step (from 1), TagReason on llm_output_invalid's 1s (why the structured
// answer is invalid, records.OutputCheck.Invalid) and on
// llm_tool_call_parse_failures (why the arguments did not parse).
const (
	TagStep   = "step"
	TagReason = "reason"
)

// ModuleTags are the module's own tag keys, in the order Tags returns them.
var ModuleTags = []string{TagModel, TagAPI, TagStatus, TagError, TagTokenSource}
