// Package stream is the streaming engine: it sends one request to a streaming
// LLM endpoint, reads the server-sent events as they come off the connection,
// and returns a Record of when each piece of generated text arrived, what it
// was, how many tokens it carried and how the stream ended.
//
// # Use
//
//	c := stream.NewClient(stream.WithIdleTimeout(30 * time.Second))
//	rec := c.Do(ctx, &stream.Request{
//		URL:    "http://127.0.0.1:8000/v1/chat/completions",
//		Header: http.Header{"Authorization": {"Bearer " + key}},
//		Body:   []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`),
//	})
//	if rec.Err != nil { ... rec.Err.Kind ... }
//
// Decode does the same decoding for a recorded body, without HTTP or timing;
// Reader is the SSE reader alone.
//
// # Timing
//
// Record.Start is taken just before the request is handed to the HTTP client,
// so connection set-up is part of TTFT. The body is read through a wrapper
// that takes the time once for every read that returns bytes from the
// connection (below any gzip/deflate decoding); every event completed by that
// read is stamped with that time, before any JSON is decoded. Durations are
// offsets from Start on the monotonic clock. TTFT is the first event carrying
// generated text: non-empty answer content (or refusal), non-empty reasoning
// (reasoning_content, reasoning, thinking_delta, a Responses reasoning
// summary, a Gemini thought part, Cohere thinking or tool plan) or a
// non-empty tool-call name or arguments fragment — never a role-only, empty,
// null, signature_delta, thoughtSignature or usage-only event, nor a *.done
// event repeating text already streamed. ITL holds the gaps between
// consecutive text events; TPOT is (E2E − TTFT) / (output tokens − 1). E2E
// ends at the read that completed the terminal event ([DONE], message_stop,
// response.completed, Cohere's message-end, ollama's done:true), else at the
// last read before a clean end of the body, else at the failure.
//
// # Server-sent events
//
// Reader follows the WHATWG event-stream rules (LF, CR and CRLF line ends, a
// leading BOM, comments, "data:" with or without one space, multi-line data
// joined with "\n", event/id/retry fields). As the rules say, an event that the
// body leaves unfinished — no blank line after it — is not dispatched: a body
// ending in "data: [DONE]" without a line end has no [DONE]. Such a stream
// still ends normally if an earlier event carried a finish or stop reason.
// Lines (and one event's data) longer than WithMaxLineBytes fail the request as
// KindMalformed.
//
// # Dialects
//
// The URL path picks the dialect (…/chat/completions, …/completions,
// …/messages, …/responses, …:streamGenerateContent, …/v2/chat, …/api/chat
// and …/api/generate; see DialectFromPath) unless Request.Dialect names one;
// otherwise the first event's shape does (event names and "type" values,
// Gemini's candidates/usageMetadata, ollama's done). The engine sets
// "stream": true in the body (not for Gemini, which streams by its URL —
// ask for alt=sse — and rejects unknown fields) and, for the OpenAI chat and
// completions dialects only (so also not when the dialect is left to the
// events), adds stream_options.include_usage unless Request.NoIncludeUsage
// is set or the caller set include_usage itself.
//
// ollama's native stream is newline-delimited JSON, not server-sent events:
// a response of Content-Type application/x-ndjson is read one object a line
// (NewNDJSONReader), and so is a recording given to Decode whose first
// non-blank byte is '{'.
//
// The chat-compatible servers' variations are all read by the openai-chat
// decoder: content as a list of parts (Mistral's "thinking" parts are
// reasoning), reasoning under reasoning_content, reasoning or OpenRouter's
// reasoning_details (counted once), usage under x_groq.usage, vLLM's
// token_ids per choice (tokens per event), llama.cpp's timings.
//
// # Tokens
//
// Output and input tokens come from the stream's usage report when there is
// one (the last usage seen: OpenAI's final usage chunk or usage on every chunk;
// Anthropic's message_delta output and message_start input, cache reads and
// writes included; the Responses API's final response; Gemini's cumulative
// usageMetadata, thinking tokens included in the output; Cohere's
// message-end; ollama's final eval_count), else output tokens are the text
// events counted. When every text event reported cumulative completion tokens
// (vLLM's continuous_usage_stats or token_ids, Gemini), Record.ITLTokens and
// EventTime.Tokens hold how many tokens each event carried. Cached prompt
// tokens are in Record.CachedInputTokens (and CacheCreationInputTokens). A
// server's own timings (ollama's durations, llama.cpp's timings) are in
// Record.ServerTimings, beside ours.
//
// # Errors
//
// Every failure is one ErrorKind: invalid_request (nothing was sent), connect
// (no response headers), http_4xx codes and http_5xx, not_streamed (2xx that is
// not text/event-stream; text and usage of the JSON answer are kept), timeout
// or timeout_midstream (the total or idle deadline, before or after the first
// text), canceled (the caller's context), reset_midstream (the connection broke
// after the headers, or the body ended without any end marker), stream_error
// (an error event), malformed (an event that cannot be decoded, a line past the
// cap, a body that cannot be decompressed) and empty_output (a normal end
// without text). Messages are at most 300 bytes and never contain a value of
// the request's headers or URL query, nor anything shaped like an API key.
package stream
