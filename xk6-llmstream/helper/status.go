package helper

import (
	"net/http"
	"strings"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// StatusCanceled is the status of the answer whose stream the helper canceled
// because it was shutting down.
const StatusCanceled = http.StatusServiceUnavailable

// answerStatus is the HTTP status of the answer carrying rec, so that k6's own
// http_req_failed follows llm_requests_failed: 200 for a complete stream; the
// upstream's status for an HTTP error (4xx, 5xx); 504 for a timeout; 503 for a
// stream canceled at shutdown; 502 for every other failure (connect, reset,
// malformed, stream error, not streamed, empty output, invalid request). The
// body is the record either way.
func answerStatus(rec *stream.Record) int {
	if rec.Err == nil {
		return http.StatusOK
	}
	switch k := rec.Err.Kind; {
	case strings.HasPrefix(string(k), "http_"):
		if rec.Status >= 400 && rec.Status <= 599 {
			return rec.Status
		}
		return http.StatusBadGateway
	case k == stream.KindTimeout || k == stream.KindTimeoutMidstream:
		return http.StatusGatewayTimeout
	case k == stream.KindCanceled:
		return StatusCanceled
	default:
		return http.StatusBadGateway
	}
}
