package stream

import "fmt"

// ErrorKind names why a request failed. Kinds are stable: they become the
// `error` tag on k6 samples, so dashboards and thresholds depend on them.
type ErrorKind string

// The error kinds. HTTP errors are "http_<code>" for 4xx (see HTTPKind) and
// "http_5xx" for any 5xx; the exact code is in Record.Status and the `status` tag.
const (
	// KindConnect: no response arrived — DNS, dial, TLS, or the connection broke
	// before the response headers.
	KindConnect ErrorKind = "connect"
	// KindTimeout: the deadline passed before any generated text arrived.
	KindTimeout ErrorKind = "timeout"
	// KindTimeoutMidstream: the deadline (total or idle) passed after text began.
	KindTimeoutMidstream ErrorKind = "timeout_midstream"
	// KindResetMidstream: the connection broke (reset, unexpected EOF) after the
	// response headers, or the body ended without any end-of-stream marker.
	KindResetMidstream ErrorKind = "reset_midstream"
	// KindNotStreamed: 2xx, but the response is not text/event-stream (e.g. the
	// whole answer came as one JSON document).
	KindNotStreamed ErrorKind = "not_streamed"
	// KindStreamError: the server sent an error event inside the stream.
	KindStreamError ErrorKind = "stream_error"
	// KindMalformed: an event could not be decoded (bad JSON, unknown shape, a
	// line longer than the configured cap).
	KindMalformed ErrorKind = "malformed"
	// KindEmptyOutput: the stream ended normally but carried no generated text.
	KindEmptyOutput ErrorKind = "empty_output"
	// KindCanceled: the caller gave up (context canceled) before the stream ended.
	KindCanceled ErrorKind = "canceled"
	// KindInvalidRequest: the request could not be built or sent as given (bad
	// URL, body that is not a JSON object). Nothing reached the server.
	KindInvalidRequest ErrorKind = "invalid_request"
	// KindHTTP5xx: any 5xx status.
	KindHTTP5xx ErrorKind = "http_5xx"
)

// HTTPKind returns the kind for a non-2xx HTTP status: "http_5xx" for 500–599,
// "http_<code>" otherwise (http_400, http_401, http_404, http_429, ...).
func HTTPKind(status int) ErrorKind {
	if status >= 500 && status <= 599 {
		return KindHTTP5xx
	}
	return ErrorKind(fmt.Sprintf("http_%d", status))
}

// Error is a failed request's kind and a human message. The message never holds
// an API key or any request header value; server bodies quoted in it are
// truncated.
type Error struct {
	Kind    ErrorKind `json:"kind"`
	Message string    `json:"message"`
}

func (e *Error) Error() string { return string(e.Kind) + ": " + e.Message }
