package stream

import (
	"net"
	"net/http"
	"time"
)

// Defaults for a Client made without options.
const (
	// DefaultTimeout bounds a whole request, from the moment it is sent to the
	// end of the stream.
	DefaultTimeout = 10 * time.Minute
	// DefaultIdleTimeout bounds every wait for bytes from the server: for the
	// response headers, and then between two reads of the body.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxIdleConnsPerHost is how many idle connections the default
	// transport keeps for one host, so that thousands of concurrent streams to
	// one endpoint reuse their connections instead of redialing.
	DefaultMaxIdleConnsPerHost = 10000
	// DefaultDrainTimeout bounds how long the client keeps reading after the
	// terminal event ([DONE], message_stop) to let the connection be reused.
	DefaultDrainTimeout = 250 * time.Millisecond
)

// maxErrorBody is how much of a non-2xx response body is read for its message.
const maxErrorBody = 4 << 10

// maxDrainBytes is how much is read after the terminal event at most.
const maxDrainBytes = 64 << 10

// Option configures a Client (and Decode, which takes WithMaxLineBytes).
type Option func(*config)

type config struct {
	timeout     time.Duration
	idleTimeout time.Duration
	maxLine     int
	drain       time.Duration
	rt          http.RoundTripper
	now         func() time.Time
}

func newConfig(opts []Option) config {
	c := config{
		timeout:     DefaultTimeout,
		idleTimeout: DefaultIdleTimeout,
		maxLine:     DefaultMaxLineBytes,
		drain:       DefaultDrainTimeout,
		now:         time.Now,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTimeout sets the default total timeout of a request (Request.Timeout
// overrides it). Zero or less keeps DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithIdleTimeout sets the default idle timeout (Request.IdleTimeout overrides
// it): the longest wait for the response headers or for the next bytes of the
// body. Zero or less keeps DefaultIdleTimeout.
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.idleTimeout = d
		}
	}
}

// WithMaxLineBytes caps the length of one SSE line and of one event's data; a
// longer one fails the request as KindMalformed. Zero or less keeps
// DefaultMaxLineBytes.
func WithMaxLineBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxLine = n
		}
	}
}

// WithTransport makes the Client send its requests through rt instead of a
// transport from NewTransport. If rt is an *http.Transport that does not
// disable compression, Go asks for gzip and decodes it before the engine sees
// the body; read times are still those of the reads from the connection.
func WithTransport(rt http.RoundTripper) Option {
	return func(c *config) {
		if rt != nil {
			c.rt = rt
		}
	}
}

// WithDrainTimeout sets how long the client keeps reading after the terminal
// event so that the connection can be reused. Zero or less keeps
// DefaultDrainTimeout.
func WithDrainTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.drain = d
		}
	}
}

// withClock replaces time.Now (tests).
func withClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// NewTransport returns the transport a Client uses by default: tuned for many
// concurrent streams to one host (no cap on connections per host, up to
// DefaultMaxIdleConnsPerHost idle ones kept), HTTP/2 over TLS when the server
// offers it, proxies from the environment, certificate checks on, and
// compression left to the engine (it decodes gzip and deflate bodies itself,
// and asks for neither unless the request's headers do).
func NewTransport() *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          0, // no limit
		MaxIdleConnsPerHost:   DefaultMaxIdleConnsPerHost,
		MaxConnsPerHost:       0, // no limit
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}
