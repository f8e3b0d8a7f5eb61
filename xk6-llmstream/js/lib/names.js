// The names that are the module's contract with the helper, analyze and
// dashboards: the dialects and their default paths, the metric names, the
// metadata keys and the helper's error kind. Every llm_* name of the module
// is written here and nowhere else (internal/metrics/builtin.go is the Go
// list; TestModuleMetricsAreGos compares the two, TestOneJSFileNamesMetrics
// holds the other files to it).

/** The dialects a Client speaks and the endpoint path each uses by default. */
export const APIS = Object.freeze({
  'openai-chat': '/v1/chat/completions',
  'openai-completions': '/v1/completions',
  'anthropic-messages': '/v1/messages',
  'openai-responses': '/v1/responses',
  // {model} is the request's model; without alt=sse Google answers a JSON array.
  gemini: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
  cohere: '/v2/chat',
  ollama: '/api/chat',
});

/** The k6 metrics this module adds samples to (names are the contract with analyze). */
export const METRICS = Object.freeze({
  ttft: 'llm_ttft',
  ttftAnswer: 'llm_ttft_answer',
  tpot: 'llm_tpot',
  itl: 'llm_itl',
  itlMax: 'llm_itl_max',
  e2e: 'llm_e2e',
  ttftScheduled: 'llm_ttft_scheduled',
  e2eScheduled: 'llm_e2e_scheduled',
  outputTokens: 'llm_output_tokens',
  inputTokens: 'llm_input_tokens',
  requestsFailed: 'llm_requests_failed',
  requestsAbandoned: 'llm_requests_abandoned',
  sloMet: 'llm_slo_met',
  fluidity: 'llm_fluidity',
  deadlineMet: 'llm_deadline_met',
  serverPrefill: 'llm_server_prefill',
  serverTPOT: 'llm_server_tpot',
  cachedInputTokens: 'llm_cached_input_tokens',
  clientLag: 'llm_client_lag',
  clientCPUIdle: 'llm_client_cpu_idle',
  itlZeroGaps: 'llm_itl_zero_gaps',
  stageConnect: 'llm_stage_connect',
  stageSend: 'llm_stage_send',
  stageWait: 'llm_stage_wait',
  stageFirstEvent: 'llm_stage_first_event',
  stageFirstToken: 'llm_stage_first_token',
  cost: 'llm_cost',
  outputTokenMismatch: 'llm_output_token_mismatch',
  outputInvalid: 'llm_output_invalid',
  toolCalls: 'llm_tool_calls',
  toolCallFirstArg: 'llm_tool_call_first_arg',
  toolCallParseFailures: 'llm_tool_call_parse_failures',
  agentTaskE2E: 'llm_agent_task_e2e',
  agentTaskSteps: 'llm_agent_task_steps',
  agentTaskCompleted: 'llm_agent_task_completed',
});

/** The error kind of a request the helper refused or did not answer. */
export const HELPER_ERROR_KIND = 'helper';

/** The value of the `name` tag on the http_req_* samples of the hop to the helper. */
export const HELPER_REQUEST_NAME = 'llmstream-helper';

/** The metadata key that carries each request's id on its llm_* samples. */
export const REQUEST_ID_METADATA = 'llm_request_id';

// The workload metrics: Dataset, Session, fixedOutputTokens, arrivals().
export const WORKLOAD_METRICS = Object.freeze({
  outputLengthMismatch: 'llm_output_length_mismatch',
  arrivalsDropped: 'llm_arrivals_dropped',
  arrivalLateness: 'llm_arrival_lateness',
});

/** The metadata key that carries a dataset entry's id on its request's llm_* samples. */
export const ENTRY_ID_METADATA = 'llm_entry_id';

/** The k6 metrics of embeddings and rerank calls. */
export const CALL_METRICS = Object.freeze({
  embedDuration: 'llm_embed_duration',
  embedInputTokens: 'llm_embed_input_tokens',
  embedBatchSize: 'llm_embed_batch_size',
  embedFailed: 'llm_embed_failed',
  rerankDuration: 'llm_rerank_duration',
  rerankInputTokens: 'llm_rerank_input_tokens',
  rerankDocuments: 'llm_rerank_documents',
  rerankFailed: 'llm_rerank_failed',
});
