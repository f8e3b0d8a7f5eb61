package stream

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Request is one streaming request for Client.Do.
type Request struct {
	// URL is the full endpoint, e.g. http://127.0.0.1:8000/v1/chat/completions.
	URL string
	// Dialect of the response; DialectAuto (or "") detects it.
	Dialect Dialect
	// Header is sent as given (Authorization, x-api-key, anthropic-version, ...).
	// Header values never appear in a Record, an error message or a log.
	Header http.Header
	// Body is the JSON request object. The engine sets "stream": true and, for the
	// OpenAI dialects, stream_options.include_usage unless NoIncludeUsage is set.
	Body []byte
	// NoIncludeUsage leaves stream_options alone (for servers that reject it).
	NoIncludeUsage bool
	// Timeout bounds the whole request; 0 means the Client's default.
	Timeout time.Duration
	// IdleTimeout bounds the wait for the next bytes; 0 means the Client's default.
	IdleTimeout time.Duration
	// KeepText fills Record.Text and Record.Reasoning.
	KeepText bool
	// KeepTimeline fills Record.Timeline.
	KeepTimeline bool
}

// Client sends streaming requests and records their timing. It is safe for
// concurrent use.
type Client struct {
	// filled in by the engine implementation
}

// Do sends req and reads the stream to its end. It always returns a Record; a
// failed request has Record.Err set and keeps whatever arrived before the failure.
func (c *Client) Do(ctx context.Context, req *Request) *Record {
	_ = ctx
	return &Record{Dialect: req.Dialect, Err: &Error{Kind: KindInvalidRequest, Message: errNotYet.Error()}}
}

var errNotYet = errors.New("stream: engine not implemented yet")
