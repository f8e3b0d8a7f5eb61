// Type definitions for llmstream.js, the xk6-llmstream k6 module: they declare
// what the entry llmstream.js exports (it re-exports the files under lib/, which
// are not part of the API and have no typings of their own).
// Reference with prose and examples: docs/module.md.

/** The streaming wire formats a Client speaks. */
export type API = 'openai-chat' | 'openai-completions' | 'anthropic-messages'
  | 'openai-responses' | 'gemini' | 'cohere' | 'ollama';

/**
 * A duration: a number of milliseconds, or a k6-style string such as '500ms',
 * '2s', '1m30s', '1.5h', '100us'. A string of digits alone is milliseconds.
 */
export type Duration = number | string;

/** Tag or header values; numbers and booleans are turned into strings. */
export type StringMap = { [name: string]: string | number | boolean };

/** Latency limits of a request that counts as "good" (goodput). */
export interface SLO {
  /** Request sent → first generated text (answer or reasoning). */
  ttft?: Duration;
  /** Request sent → first answer text; equals ttft when there was no reasoning. */
  ttftAnswer?: Duration;
  /** (e2e − ttft) / (outputTokens − 1). A request with < 2 tokens meets any tpot limit. */
  tpot?: Duration;
  /** Request sent → end of stream. */
  e2e?: Duration;
  /** The longest gap between text events (llm_itl_max): a decode stall. A request with < 2 text events meets it. */
  maxGap?: Duration;
  /**
   * Per-token deadlines: token i is due at ttft + (i − 1) × perToken after the send.
   * Adds llm_deadline_met (every token on time, arXiv 2410.14257) and llm_fluidity
   * (the fraction of deadlines met, Etalon arXiv 2407.07000); see docs/deadlines.md.
   */
  deadline?: { ttft: Duration; perToken: Duration };
}

export interface ClientOptions {
  /**
   * Base URL of the API, with or without a trailing /v1: 'http://127.0.0.1:8000',
   * 'https://api.openai.com/v1'. Required.
   */
  baseURL: string;
  /**
   * API key. Sent as `Authorization: Bearer …` (OpenAI dialects, cohere, ollama),
   * `x-api-key` (anthropic-messages) or `x-goog-api-key` (gemini). Never appears
   * in tags, results, logs or errors.
   */
  apiKey?: string;
  /** Model for every request; a `model` in the request params overrides it. */
  model?: string;
  /** Wire format. Default 'openai-chat'. */
  api?: API;
  /**
   * Endpoint path appended to baseURL as given (e.g. '/chat/completions?api-version=…').
   * Default by api: /v1/chat/completions, /v1/completions, /v1/messages,
   * /v1/responses (without the /v1 when baseURL already ends in /v1);
   * /v1beta/models/{model}:streamGenerateContent?alt=sse (gemini; {model} is the
   * request's model), /v2/chat (cohere), /api/chat (ollama).
   */
  path?: string;
  /** The helper's base URL. Default: __ENV.LLMSTREAM_HELPER (set by `xk6-llmstream run`). */
  helper?: string;
  /** Bearer token for the helper. Default: __ENV.LLMSTREAM_HELPER_TOKEN. */
  helperToken?: string;
  /** Extra upstream headers (sent after the authentication headers; may override them). */
  headers?: StringMap;
  /** Fields merged into every request body under the call's params (e.g. { temperature: 0 }). */
  body?: { [field: string]: unknown };
  /** Tags added to every llm_* sample of this Client. */
  tags?: StringMap;
  /**
   * Whole-request timeout for the stream. Default '120s'. The hop to the helper
   * gets max(5 s, 10 %) more, so the helper's own answer arrives first.
   */
  timeout?: Duration;
  /** Longest wait for the next bytes of the stream. Default: the helper's. */
  idleTimeout?: Duration;
  /** Ask OpenAI dialects for the final usage chunk (stream_options.include_usage). Default true. */
  includeUsage?: boolean;
  /** Return the generated text (result.text, result.reasoning). Default false. */
  keepText?: boolean;
  /** Return the per-event timeline (result.timeline). Default false. */
  keepTimeline?: boolean;
  /**
   * Token-count audit (off by default): the helper counts the streamed answer
   * and reasoning with this tokenizer (a built-in encoding such as
   * 'cl100k_base', or a tokenizer.json path on the helper's machine) and, when
   * the server reported usage, adds llm_output_token_mismatch (a Rate: 1 when
   * usage differs from the count by more than tolerance × count and more than
   * one token). The records file keeps the count (token_audit).
   */
  tokenAudit?: { tokenizer: string; tolerance?: number };
  /**
   * Prefix-cache isolation (docs/traffic.md): "[cache-bust SALT]\n" at the
   * start of every prompt, one salt per run, so shared prefixes stay shared
   * within the run and no run is served from another's cache. true: the
   * run's LLM_CACHE_SALT (set by xk6-llmstream run); a string: that salt;
   * false: never. Unset: bust when LLM_CACHE_BUST=1 (a sweep sets it, with a
   * fresh salt per level, unless --no-cache-bust).
   */
  cacheBust?: boolean | string;
  /**
   * llm_itl samples: 'all' (default), 'off', 'records' (none in k6: the
   * helper's --records keep the per-token data, analyze reads them), or a
   * fraction 0..1 kept deterministically (every 1/f-th sample of this Client
   * in this VU) so long soak tests keep k6's memory bounded.
   */
  itl?: 'all' | 'off' | 'records' | number;
  /** Add the llm_stage_* Trends (the stages of TTFT), 5 samples per request. Default false. */
  stages?: boolean;
  /** The first n requests of this Client in each VU add no samples (result.warmup = true). Default 0. */
  warmup?: number;
  /** Adds the llm_slo_met Rate: 1 when the request succeeded and met every limit. */
  slo?: SLO;
  /**
   * Adds the llm_cost Counter, one sample per request: currency units per
   * million tokens; cachedInput defaults to input, a missing input or output
   * price is 0. Each must be a finite number >= 0.
   */
  prices?: Prices;
  /** anthropic-version header for anthropic-messages. Default '2023-06-01'. */
  anthropicVersion?: string;
  /**
   * Ask the server for exactly the expected output length: true (a dataset
   * entry's output_tokens, else the request's max_completion_tokens or
   * max_tokens) or a number of tokens. Sets max_tokens (max_completion_tokens
   * when the request uses it) and, on OpenAI-compatible dialects, vLLM/SGLang's
   * ignore_eos: true and min_tokens. Requests that succeeded with another
   * output length count in llm_output_length_mismatch.
   */
  fixedOutputTokens?: boolean | number;
  /** With fixedOutputTokens: send ignore_eos and min_tokens (default true); false for strict servers. */
  vllmExtras?: boolean;
  /**
   * Users who leave: a share of requests (picked by a seeded draw per VU and
   * request number) is abandoned by the helper after afterMs or afterTokens
   * output tokens, whichever comes first — it cancels the upstream request and
   * stops reading. Adds llm_requests_abandoned (a Rate) to every request of the
   * Client; an abandoned request is neither failed nor good (docs/abandonment-and-probes.md).
   */
  abandon?: AbandonOptions;
}

/** Where and how often requests are abandoned (the abandon option). */
export interface AbandonOptions {
  /** Leave this long after the request start (ms or a duration like '2s'). */
  afterMs?: Duration;
  /** Leave once this many output tokens arrived. */
  afterTokens?: number;
  /** The part of requests that leave, 0..1 (default 1). */
  share?: number;
  /** The seed of the draw (default 1): the same seed picks the same requests. */
  seed?: number;
}

/** Options of one chat()/asyncChat() call; each overrides the Client's. */
export interface CallOptions {
  /** Tags added to this request's llm_* samples (over the Client's tags). */
  tags?: StringMap;
  timeout?: Duration;
  idleTimeout?: Duration;
  /** Extra upstream headers for this request. */
  headers?: StringMap;
  keepText?: boolean;
  keepTimeline?: boolean;
  /**
   * The intended send time in unix ms (open-loop load): adds llm_ttft_scheduled
   * and llm_e2e_scheduled. arrivals() and replay() set it for the requests fn starts.
   */
  scheduledAt?: number;
  /** This request's abandonment (over the Client's); false: none. */
  abandon?: AbandonOptions | false;
}

/** Why a request failed. */
export interface ResultError {
  /**
   * Stable kind, also the `error` tag: http_401, http_429, http_4xx codes as
   * http_<code>, http_5xx, timeout, timeout_midstream, connect, reset_midstream,
   * not_streamed, stream_error, malformed, empty_output, canceled,
   * invalid_request, or 'helper' when the helper refused the request or did not answer.
   */
  kind: string;
  /** Human message (no credentials in it). */
  message: string;
}

/** One SSE event of the timeline (keepTimeline). */
export interface TimelineEvent {
  /** Request sent → the read that completed this event, ms. */
  at_ms: number;
  /** Whether the event carried generated text. */
  text: boolean;
  /** Output tokens the event carried, when the server reported it; else 0. */
  tokens: number;
  /** The mock server's write stamp (unix ns) for ground-truth comparisons; else 0. */
  server_ns: number;
}

/** What chat() returns and asyncChat() resolves to, for failed requests too. */
export interface Result {
  /** True when the request streamed to its end without error. */
  ok: boolean;
  /** Upstream HTTP status; 0 when no response arrived or the helper failed. */
  status: number;
  error: ResultError | null;
  /** error.kind, or '' when ok. */
  errorKind: string;
  /** The model the server named, else the request's model. */
  model: string;
  api: API | string;
  /** Request sent → first generated text, ms; null when no text arrived. */
  ttft: number | null;
  /** Request sent → first answer text, ms; null unless reasoning came first. */
  ttftAnswer: number | null;
  /** (e2e − ttft) / (outputTokens − 1), ms; null when failed or < 2 tokens. */
  tpot: number | null;
  /** Request sent → end of stream (or the error), ms; null when the helper failed. */
  e2e: number | null;
  /** The request's llm_itl samples, ms: one per token gap (a gap closed by k tokens is k samples of gap/k); empty when itl is 'off' or 'records'. */
  itl: number[];
  /** The longest gap between text events, ms (llm_itl_max); null with fewer than 2 text events. */
  itlMax: number | null;
  outputTokens: number;
  inputTokens: number;
  reasoningTokens: number;
  /** Of inputTokens, those the server read from its prompt cache (0 when not reported). */
  cachedInputTokens: number;
  /** The server's own timings (ollama, llama.cpp server), ms; null when it reported none. */
  serverTimings: ServerTimings | null;
  /** 'usage' (the API's usage report) or 'events' (text events counted); '' when unknown. */
  tokenSource: string;
  finishReason: string;
  /** Generated answer text (keepText only). */
  text?: string;
  /** Generated reasoning text (keepText only). */
  reasoning?: string;
  /** Whether the helper cut text or reasoning at its --max-text cap (keepText only). */
  textTruncated?: boolean;
  /** Per-event timeline (keepTimeline only). */
  timeline?: TimelineEvent[];
  /** The answer's tool calls, in order ([] for a text answer). */
  toolCalls: ToolCall[];
  /** Request start → first argument piece of the first tool call, ms (llm_tool_call_first_arg); null without one. */
  toolCallFirstArg: number | null;
  /** True for the Client's first `warmup` requests in this VU: no samples were added. */
  warmup: boolean;
  /** Per-request id, also the llm_request_id metadata of this request's samples. */
  requestId: string;
  /** With slo: whether this request met it (also the llm_slo_met sample); else null. */
  sloMet: boolean | null;
  /**
   * With prices: this request's cost (also the llm_cost sample), (uncached
   * input x input + cached input x cachedInput + output x output) / 1e6; else null.
   */
  cost: number | null;
  /** The dataset entry's id when chat() was given an entry; else ''. */
  entryId: string;
  /** With fixedOutputTokens: the output length asked for; else null. */
  expectedOutputTokens: number | null;
  /** True when the request succeeded with another output length than expectedOutputTokens. */
  outputLengthMismatch: boolean;
  /**
   * The helper's check of a structured answer (a body with response_format or
   * the dialect's own JSON field): '' when valid, else the reason of its
   * llm_output_invalid sample ('not_json', 'schema', 'tool_calls', 'too_long');
   * null when the answer was not checked.
   */
  outputInvalid: string | null;
  /**
   * Set when the helper abandoned the request (the abandon option): when it
   * left (ms from the request start) and the output tokens received by then;
   * null otherwise. An abandoned request has ok true (it did not fail).
   */
  abandoned: { atMs: number; tokens: number } | null;
  /**
   * The helper's JSON answer as received (its error answer for helper refusals), or null:
   * answer version 3 (docs/helper-api.md), where a null, zero or false field is absent and
   * model, api and token_source are in raw.tags.
   */
  raw: { [field: string]: unknown } | null;
}

/** One tool call of an answer. */
export interface ToolCall {
  /** The API's call id ('' for gemini and ollama, which give none). */
  id: string;
  name: string;
  /** The arguments JSON text as streamed. */
  arguments: string;
  /** The arguments parsed; null when they did not parse (see parseError). */
  args: { [name: string]: unknown } | null;
  /** Request start → the call's first argument piece, ms; null when none came. */
  firstArg: number | null;
  /** '' when the arguments are a JSON object (or empty); else invalid_json, not_object or too_large. */
  parseError: string;
}

/** A tool offered to the model: the module writes it in each API's own shape (toolsFor). */
export interface Tool {
  name: string;
  description?: string;
  /** A JSON schema of the arguments. Default: an object without properties. */
  parameters?: { [field: string]: unknown };
  /**
   * Strict schema adherence: openai-responses always gets it (default false; the
   * API's own default is true), openai-chat as function.strict when given; other APIs ignore it.
   */
  strict?: boolean;
}

/** The `tools` request field of api for tools. */
export function toolsFor(api: API, tools: Tool[]): unknown[];

export interface AgentOptions {
  /** The tools offered at every step. Required. */
  tools: Tool[];
  /** Runs a tool call; its result is sent back (a string, else its JSON). */
  run?: (call: ToolCall) => unknown;
  /** Canned results by tool name, when there is no run function. */
  results?: { [tool: string]: unknown };
  /** The most requests of a task. Default 10. */
  maxSteps?: number;
  /** A system prompt (each API's own field). */
  system?: string;
  /** Tags of every step's samples and of the task's samples. */
  tags?: StringMap;
  /** Extra request body fields of every step (max_tokens, tool_choice, ...). */
  body?: { [field: string]: unknown };
}

/** A step of an Agent task: the Result and its step number (from 1). */
export type StepResult = Result & { step: number };

/** What Agent.run returns. */
export interface TaskResult {
  /** Every step succeeded. */
  ok: boolean;
  /** The task ended with an answer without tool calls within maxSteps, every step ok (llm_agent_task_completed). */
  completed: boolean;
  steps: StepResult[];
  /** First step's start → last step's end, ms (llm_agent_task_e2e); null when the helper did not answer. */
  e2e: number | null;
  /** The last answer's text (keepText only). */
  text?: string;
}

/**
 * Runs tool-calling tasks: send with tools, run the model's tool calls, send
 * the calls and results back in the API's own shape, until an answer without
 * tool calls or maxSteps. Step samples are tagged step=N; each task adds
 * llm_agent_task_e2e, llm_agent_task_steps and llm_agent_task_completed.
 */
export class Agent {
  constructor(client: Client, options: AgentOptions);
  readonly client: Client;
  /** The tools in the client's API shape. */
  readonly tools: unknown[];
  readonly maxSteps: number;
  readonly system: string;
  readonly tags: { readonly [name: string]: string };
  /** Runs one task from a user prompt; blocks like Client.chat. */
  run(prompt: string, options?: CallOptions): TaskResult;
}

/** What a server reported of its own work on one request (ms; null when not reported). */
export interface ServerTimings {
  /** Prompt evaluation (ollama prompt_eval_duration, llama.cpp timings.prompt_ms): llm_server_prefill. */
  prefill: number | null;
  /** Generation of the output tokens (ollama eval_duration). */
  decode: number | null;
  /** decode / outputTokens (ollama eval_duration / eval_count): llm_server_tpot. */
  tpot: number | null;
  promptTokens: number;
  outputTokens: number;
}

/** A generated image of a dataset entry's message (xk6-llmstream dataset --image-sizes). */
export interface EntryImage {
  /** data:image/png;base64,... */
  url: string;
  width: number;
  height: number;
}

/** An image part of a chat message (OpenAI chat's shape; chat() maps it to each API's). */
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'low' | 'high' | 'auto' };
}

/** A text part of a chat message. */
export interface TextPart {
  type: 'text';
  text: string;
}

/**
 * An image part for a chat message's content array: url is a data URL
 * (data:image/png;base64,...) or an http(s) URL. chat() sends it as the API's
 * own part: OpenAI chat and Cohere image_url, Responses input_image, Anthropic
 * image (base64 or url source), Gemini inlineData or fileData, ollama images
 * (data URLs only).
 */
export function image(url: string, options?: { detail?: 'low' | 'high' | 'auto' }): ImagePart;

/**
 * A chat() body's response_format: JSON output, with a JSON schema or without.
 * chat() sends it as the API's own field: OpenAI chat response_format,
 * Responses text.format, Anthropic output_config.format (a schema is
 * required), Gemini generationConfig.responseMimeType + responseJsonSchema,
 * Cohere response_format {type: 'json_object', json_schema}, ollama format.
 */
export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name?: string; schema: { [k: string]: unknown }; strict?: boolean } }
  | { type: 'text' };

/**
 * A chat() body (messages, max_tokens, ...) as the request body of dialect api:
 * messages → input (openai-responses), contents/systemInstruction (gemini);
 * max_tokens → max_output_tokens, generationConfig.maxOutputTokens,
 * options.num_predict (ollama).
 */
export function dialectBody(api: API, body: { [field: string]: unknown }): { [field: string]: unknown };

/** A streaming LLM client. Create it in the init context (top level of the script). */
export class Client {
  constructor(options: ClientOptions);
  /** The upstream endpoint URL this Client streams from (no credentials in it); the same as url. */
  readonly endpoint: string;
  /** The wire format: the api option, 'openai-chat' when not given. */
  readonly api: API;
  /** The model option; '' when not given. */
  readonly model: string;
  /** The upstream endpoint URL (baseURL + path, with the model filled in for gemini). */
  readonly url: string;
  /** Where requests go: the helper's base URL (option helper, else __ENV.LLMSTREAM_HELPER) + '/v1/stream'. */
  readonly helperURL: string;
  /** The timeout option in ms (default 120000). */
  readonly timeoutMs: number;
  /** The idleTimeout option in ms; null when not given (the helper's default). */
  readonly idleTimeoutMs: number | null;
  readonly includeUsage: boolean;
  readonly keepText: boolean;
  readonly keepTimeline: boolean;
  /** The tags option, each value turned into a string. */
  readonly tags: { readonly [name: string]: string };
  /** The body option ({} when not given). */
  readonly body: { readonly [field: string]: unknown };
  /** The itl option as the helper takes it: 'fraction' with 0 < fraction < 1, else fraction is 1 ('all') or 0. */
  readonly itl: { readonly mode: 'all' | 'off' | 'records' | 'fraction'; readonly fraction: number };
  readonly stages: boolean;
  readonly warmup: number;
  /** The slo option's limits in ms; null without slo. */
  readonly slo: { readonly [limit in keyof SLO]?: number } | null;
  /** The prices option with its defaults filled in; null without prices. */
  readonly prices: Readonly<Required<Prices>> | null;
  /** The abandon option with its defaults filled in; null without it. */
  readonly abandon: { readonly afterMs: number | null; readonly afterTokens: number | null; readonly share: number; readonly seed: number } | null;
  /** The Client's tokenAudit option (null without it). */
  readonly tokenAudit: { readonly tokenizer: string; readonly tolerance?: number } | null;
  /** The fixedOutputTokens option: tokens is null for true (each request's own length); null when off. */
  readonly fixedOutput: { readonly tokens: number | null; readonly extras: boolean } | null;
  /** The vllmExtras option (default true). */
  readonly vllmExtras: boolean;
  /**
   * Sends one streaming request and blocks the VU until it ends. `params` is the
   * API's request body (messages, max_tokens, …) or a prompt string. Never throws
   * for a failed request: check result.ok.
   */
  chat(params: { [field: string]: unknown } | string | Entry, options?: CallOptions): Result;
  /** Like chat(), through http.asyncRequest: one VU can hold several streams. */
  asyncChat(params: { [field: string]: unknown } | string | Entry, options?: CallOptions): Promise<Result>;
  /**
   * Embeds a batch (not streamed): `params` is `{ input, model?, … }` (other
   * fields pass through) or the input itself. Adds llm_embed_* samples. Never
   * throws for a failed call: check result.ok.
   */
  embed(params: EmbedParams | string | string[], options?: EmbedOptions): CallResult;
  /** Ranks documents against a query (not streamed). Adds llm_rerank_* samples. */
  rerank(params: RerankParams, options?: RerankOptions): CallResult;
}

/** The embeddings and rerank APIs (docs/embeddings.md). */
export type CallAPI = 'openai-embeddings' | 'cohere-embed' | 'cohere-rerank' | 'rerank';

/** embed()'s params: `input` becomes Cohere's `texts` for cohere-embed. */
export interface EmbedParams {
  input: string | string[];
  model?: string;
  /** cohere-embed: default 'search_document'. */
  input_type?: string;
  /** cohere-embed: default ['float']. */
  embedding_types?: string[];
  [field: string]: unknown;
}

/** rerank()'s params; topN is sent as top_n (not to TEI). */
export interface RerankParams {
  query: string;
  documents: string[];
  topN?: number;
  model?: string;
  [field: string]: unknown;
}

/** Options of one embed() call. */
export interface EmbedOptions {
  /** Default: 'cohere-embed' for a Client of api cohere, else 'openai-embeddings'. */
  api?: 'openai-embeddings' | 'cohere-embed';
  /** The path after baseURL (default CALL_APIS[api]). */
  path?: string;
  tags?: StringMap;
  timeout?: Duration;
  headers?: StringMap;
}

/** Options of one rerank() call. */
export interface RerankOptions {
  /** Default: 'cohere-rerank' for a Client of api cohere, else 'rerank' (vLLM). */
  api?: 'cohere-rerank' | 'rerank';
  /** Hugging Face TEI: body {query, texts} to /rerank (api 'rerank'). */
  tei?: boolean;
  path?: string;
  tags?: StringMap;
  timeout?: Duration;
  headers?: StringMap;
}

/** What embed() and rerank() return. */
export interface CallResult {
  ok: boolean;
  /** The upstream HTTP status, 0 when none arrived. */
  status: number;
  error: ResultError | null;
  errorKind: string;
  kind: 'embed' | 'rerank';
  api: CallAPI;
  model: string;
  /** The call's duration in ms (llm_embed_duration or llm_rerank_duration); null when never sent. */
  duration: number | null;
  /** The input tokens the server reported (0 when it reported none: see tokenSource). */
  inputTokens: number;
  /** 'usage', or 'none' when the answer carries no token count (Cohere rerank, TEI). */
  tokenSource: string;
  /** Inputs (embed) or documents (rerank) sent. */
  batch: number;
  /** Vectors (embed) or ranked documents (rerank; fewer with topN) answered. */
  results: number;
  warmup: boolean;
  requestId: string;
  /** The helper's answer as JSON, version 3 (docs/helper-api.md; null when the helper did not answer). */
  raw: { [field: string]: unknown } | null;
}

/** Each embeddings and rerank API's default path. */
export const CALL_APIS: { readonly [api in CallAPI]: string };

/** The k6 metrics of embeddings and rerank calls. */
export const CALL_METRICS: {
  readonly embedDuration: 'llm_embed_duration';
  readonly embedInputTokens: 'llm_embed_input_tokens';
  readonly embedBatchSize: 'llm_embed_batch_size';
  readonly embedFailed: 'llm_embed_failed';
  readonly rerankDuration: 'llm_rerank_duration';
  readonly rerankInputTokens: 'llm_rerank_input_tokens';
  readonly rerankDocuments: 'llm_rerank_documents';
  readonly rerankFailed: 'llm_rerank_failed';
};

/** Parses a Duration into milliseconds; `what` names the option in errors. */
export function durationMs(value: Duration, what?: string): number;

/** The upstream endpoint URL for a base URL, dialect and optional path. */
export function endpointURL(baseURL: string, api: API, path?: string): string;

export const VERSION: string;
/** Default endpoint path per dialect. */
export const APIS: { readonly [api in API]: string };
/** The metric names. */
export const METRICS: {
  readonly ttft: 'llm_ttft';
  readonly ttftAnswer: 'llm_ttft_answer';
  readonly tpot: 'llm_tpot';
  readonly itl: 'llm_itl';
  readonly itlMax: 'llm_itl_max';
  readonly e2e: 'llm_e2e';
  /** TTFT from the intended send time (open-loop load: arrivals(), replay()). */
  readonly ttftScheduled: 'llm_ttft_scheduled';
  /** e2e from the intended send time (open-loop load: arrivals(), replay()). */
  readonly e2eScheduled: 'llm_e2e_scheduled';
  readonly outputTokens: 'llm_output_tokens';
  readonly inputTokens: 'llm_input_tokens';
  readonly requestsFailed: 'llm_requests_failed';
  readonly requestsAbandoned: 'llm_requests_abandoned';
  readonly sloMet: 'llm_slo_met';
  readonly serverPrefill: 'llm_server_prefill';
  readonly serverTPOT: 'llm_server_tpot';
  readonly cachedInputTokens: 'llm_cached_input_tokens';
  readonly clientLag: 'llm_client_lag';
  readonly clientCPUIdle: 'llm_client_cpu_idle';
  readonly itlZeroGaps: 'llm_itl_zero_gaps';
  readonly stageConnect: 'llm_stage_connect';
  readonly stageSend: 'llm_stage_send';
  readonly stageWait: 'llm_stage_wait';
  readonly stageFirstEvent: 'llm_stage_first_event';
  readonly stageFirstToken: 'llm_stage_first_token';
  readonly cost: 'llm_cost';
  readonly outputTokenMismatch: 'llm_output_token_mismatch';
  readonly outputInvalid: 'llm_output_invalid';
  /** Tool calls in an answer (only requests whose answer called tools). */
  readonly toolCalls: 'llm_tool_calls';
  /** Request start → the first argument piece of the answer's first tool call. */
  readonly toolCallFirstArg: 'llm_tool_call_first_arg';
  /** Tool calls whose arguments are not a JSON object, tag reason (invalid_json, not_object, too_large). */
  readonly toolCallParseFailures: 'llm_tool_call_parse_failures';
  /** An Agent task: first step's start → last step's end. */
  readonly agentTaskE2E: 'llm_agent_task_e2e';
  /** An Agent task's requests. */
  readonly agentTaskSteps: 'llm_agent_task_steps';
  /** Whether an Agent task ended with an answer within maxSteps, every step ok. */
  readonly agentTaskCompleted: 'llm_agent_task_completed';
};
/** A Client's prices, in currency units per million tokens. */
export interface Prices {
  input?: number;
  output?: number;
  /** Input tokens the server read from its prompt cache. Default: input. */
  cachedInput?: number;
}
/** 'helper': the error kind of a request the helper refused or did not answer. */
export const HELPER_ERROR_KIND: 'helper';
/** 'llmstream-helper': the `name` tag of the hop's http_req_* samples. */
export const HELPER_REQUEST_NAME: 'llmstream-helper';
/** 'llm_request_id': the metadata key carrying each request's id. */
export const REQUEST_ID_METADATA: 'llm_request_id';

/** One line of a dataset made by `xk6-llmstream dataset` (docs/dataset.md). */
export interface Entry {
  v: 1;
  id: string;
  messages?: { role: string; content: string; images?: EntryImage[] }[];
  prompt?: string;
  max_tokens: number;
  output_tokens: number;
  input_tokens: number;
  input_tokens_target?: number;
  tokenizer: string;
  session?: string;
  turn?: number;
  prefix_group?: number;
  prefix_tokens?: number;
  /** A trace's send time, ms from the trace's start (replay()). */
  at_ms?: number;
  /** Agent traces: the entries this one waits for, and the recorded time after each (replayAgents). */
  after?: { id: string; delay_ms: number }[];
  tags?: { [name: string]: string };
}

export interface DatasetOptions {
  /** 'sequential' (default): VU k takes entries seed+k−1, seed+k−1+V, …; 'random': seeded sampling per VU. */
  order?: 'sequential' | 'random';
  /** Default 1. */
  seed?: number;
  /** V, the stride of 'sequential'. Default: the test's VUs from options (sum over scenarios). */
  vus?: number;
  /** The SharedArray name. Default 'llmstream-dataset:' + path. */
  name?: string;
}

/**
 * Where Dataset reads a data file: an absolute path or file:// URL as given; a
 * relative one ('./data/x.jsonl', 'data/x.jsonl') resolved from the calling
 * script's folder by its import.meta (k6 v0.54+), e.g.
 * `new Dataset(dataURL(__ENV.LLM_DATASET || './data/x.jsonl', import.meta))`.
 */
export function dataURL(path: string, importMeta: ImportMeta): string;

/** A JSONL dataset in a SharedArray (one copy per k6 process). Create it in the init context. */
export class Dataset {
  /**
   * path is read with k6's open(): give a URL from import.meta.resolve('./data.jsonl')
   * (relative to your script, k6 v0.54+) or an absolute path. A relative path is
   * relative to the main script, and k6 v2 warns that this will change.
   */
  constructor(path: string, options?: DatasetOptions);
  readonly order: 'sequential' | 'random';
  readonly seed: number;
  /** The vus option; null when not given (the test's VUs are used). */
  readonly vus: number | null;
  readonly length: number;
  readonly sessionCount: number;
  /** Entry i (0-based, wrapping). */
  at(i: number): Entry;
  /** The next entry for this VU. */
  next(): Entry;
  /** The entries of the next session for this VU (turn 1 first). */
  nextSession(): Entry[];
}

export interface SessionOptions {
  /** A system message at the start of the history. */
  system?: string;
  /** Think time before each turn after the first in run(): a duration or [min, max] (uniform, seeded). */
  thinkTime?: Duration | [Duration, Duration];
  /** Tags of every request of the session. */
  tags?: StringMap;
  /** Seed of the think time draws (with the VU id). Default 1. */
  seed?: number;
}

/** What Session.chat returns: the Result and the turn it was (from 1). */
export type TurnResult = Result & { turn: number };

/** A multi-turn conversation of one VU. */
export class Session {
  constructor(client: Client, options?: SessionOptions);
  readonly client: Client;
  /** The system option; '' when not given. */
  readonly system: string;
  /** The tags option, each value turned into a string. */
  readonly tags: { readonly [name: string]: string };
  /** The thinkTime option in ms ({min, max}; min = max for one duration); null when not given. */
  readonly think: { readonly min: number; readonly max: number } | null;
  /** Turns answered so far. */
  readonly turn: number;
  /** The messages so far (a copy). */
  readonly history: { role: string; content: string }[];
  reset(): void;
  /** Sends the history plus a new user message (or an entry's messages), tagged turn=N; appends the answer on success. */
  chat(message: string | Entry, options?: CallOptions): TurnResult;
  asyncChat(message: string | Entry, options?: CallOptions): Promise<TurnResult>;
  /** Plays a dataset session with think time between turns; stops at the first failure. */
  run(entries: Entry[], options?: CallOptions): TurnResult[];
  /** One think time draw, ms. */
  thinkMs(): number;
}

export interface ArrivalOptions {
  /** Mean arrivals per second. Required. */
  rate: number;
  /** Gamma shape of the gaps: 1 Poisson (default), < 1 burstier, > 1 more even (vLLM --burstiness). */
  burstiness?: number;
  /** Seed of the gaps. Default 1. */
  seed?: number;
  /** Arrivals finding this many calls in flight are dropped (llm_arrivals_dropped). Default 1000. */
  maxInFlight?: number;
  /** How long arrivals go on. */
  duration?: Duration;
  /** Stop after this many arrivals (0: no limit). Give duration, count or both. */
  count?: number;
  /** Tags of llm_arrivals_dropped and llm_arrival_lateness. */
  tags?: StringMap;
  /** Return the intended arrival offsets (ms) in the result. */
  schedule?: boolean;
}

export interface ArrivalStats {
  arrivals: number;
  sent: number;
  dropped: number;
  /** Calls whose promise rejected (or that threw). */
  failed: number;
  /** Date.now() at the start; arrival i was due at startMs + schedule[i]. */
  startMs: number;
  schedule: number[] | null;
}

/** Open-loop arrivals: calls fn(i) at gamma/Poisson arrival times without awaiting it. */
export function arrivals(options: ArrivalOptions, fn: (i: number) => unknown): Promise<ArrivalStats>;
export interface ReplayOptions {
  /** Trace time runs this many times faster. Default 1. */
  speedup?: number;
  /** Replay entries whose at_ms is ≥ from (trace time); the start maps to from. */
  from?: Duration;
  /** Replay entries whose at_ms is < to (trace time). */
  to?: Duration;
  /** At most this many requests (0: every request in the window). */
  count?: number;
  /** At most this many calls at once; a request finding none free waits (sent late, never dropped). Default 1000. */
  maxInFlight?: number;
  /** Tags of llm_arrival_lateness. */
  tags?: StringMap;
}

export interface ReplayStats {
  /** Requests in the window (up to count). */
  requests: number;
  sent: number;
  /** Calls whose promise rejected (or that threw). */
  failed: number;
  /** Requests that found every in-flight slot taken and waited. */
  waited: number;
  /** Date.now() at the start. */
  startMs: number;
  /** Send lag (send − intended time), ms: p50, p99 (k6's p(N)), max; null when nothing was sent. */
  lagP50Ms: number | null;
  lagP99Ms: number | null;
  lagMaxMs: number | null;
  /** The send lag passed REPLAY_LAG_P99_MS or REPLAY_LAG_P50_MS. */
  degraded: boolean;
}

/** Replays a trace dataset (entries with at_ms): calls fn(entry, i) at each entry's trace time / speedup. */
export function replay(dataset: Dataset | Entry[], options: ReplayOptions | undefined, fn: (entry: Entry, i: number) => unknown): Promise<ReplayStats>;

export interface AgentReplayOptions {
  /** Trace time runs this many times faster (default 1). */
  speedup?: number;
  /** Tags of llm_agent_task_e2e and llm_agent_task_steps. */
  tags?: Record<string, string>;
}

export interface AgentReplayStats {
  requests: number;
  failed: number;
  sessions: number;
  startMs: number;
}

/**
 * Replays an agent trace (dataset --format otlp-genai): an entry without
 * "after" at its at_ms, one with "after" once the entries it names finished
 * plus their delay_ms (docs/traffic.md).
 */
export function replayAgents(dataset: Dataset | Entry[], options: AgentReplayOptions | undefined, fn: (entry: Entry, i: number) => unknown): Promise<AgentReplayStats>;
/** The send lag p99 (ms) above which a replay is degraded. */
export const REPLAY_LAG_P99_MS: 500;
/** The send lag median (ms) above which a replay is degraded. */
export const REPLAY_LAG_P50_MS: 10;
/** The latest send time replay() schedules, ms after its start (7 days); a later entry is refused. */
export const REPLAY_HORIZON_MS: 604800000;
/** Parses a JSONL dataset; errors name the file and line. */
export function parseDataset(name: string, text: string): { entries: Entry[]; sessions: [number, number][] };
/** A seeded uniform generator on (0, 1). */
export function prng(seed: number): () => number;
/** Gamma draws with the given shape and mean from a uniform generator. */
export function gammaSampler(shape: number, mean: number, rand: () => number): () => number;
/** The dialects fixedOutputTokens supports, and whether ignore_eos/min_tokens are sent. */
export const FIXED_LENGTH_DIALECTS: { readonly [api: string]: { readonly extras: boolean } };
export const WORKLOAD_METRICS: {
  readonly outputLengthMismatch: 'llm_output_length_mismatch';
  readonly arrivalsDropped: 'llm_arrivals_dropped';
  readonly arrivalLateness: 'llm_arrival_lateness';
};
/** 'llm_entry_id': the metadata key carrying a dataset entry's id. */
export const ENTRY_ID_METADATA: 'llm_entry_id';

/** The tag every probe's samples carry (probe=true). */
export declare const PROBE_TAG: 'probe';

/** Options of probeScenario(). */
export interface ProbeScenarioOptions {
  /** Probes started per second (default 1). */
  rate?: number;
  /** How long to probe (required), e.g. the load's duration. */
  duration: Duration;
  /** When the probes begin (k6's scenario startTime). */
  startTime?: Duration;
  /** The script's exported function each probe runs (default 'probe'). */
  exec?: string;
  preAllocatedVUs?: number;
  maxVUs?: number;
}

/**
 * A k6 constant-arrival-rate scenario that starts `rate` probes a second on
 * VUs of its own (outside the load's concurrency), tagged probe=true: put it
 * in options.scenarios beside the load.
 */
export declare function probeScenario(options: ProbeScenarioOptions): {
  executor: 'constant-arrival-rate'; rate: number; timeUnit: string; duration: string;
  preAllocatedVUs: number; maxVUs: number; exec: string; startTime?: string; tags: { probe: 'true' };
};

/** Sends one light request (prompt 'Hi', maxTokens 1 by default) with the Client, tagged probe=true. */
export declare function probe(client: Client, options?: { maxTokens?: number; prompt?: string; tags?: StringMap }): Result;
