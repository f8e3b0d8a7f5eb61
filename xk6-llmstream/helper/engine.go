package helper

import (
	"crypto/tls"
	"fmt"
	"net/http"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// newEngineClient builds the one stream.Client that all requests share: its
// transport pools connections per upstream host, so thousands of concurrent
// streams reuse connections instead of redialing. Every request it sends —
// redirects included — is checked against the allow-list. It trusts
// c.rootCAs when set (WithRootCAs).
func newEngineClient(c config) *stream.Client {
	tr := stream.NewTransport()
	if c.rootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: c.rootCAs}
	}
	opts := []stream.Option{
		stream.WithTimeout(c.timeout),
		stream.WithIdleTimeout(c.idleTimeout),
		stream.WithTransport(&allowTransport{allow: c.allow, next: tr}),
	}
	if c.maxLine > 0 {
		opts = append(opts, stream.WithMaxLineBytes(c.maxLine))
	}
	return stream.NewClient(opts...)
}

// NewUpstreamClient is the client the helper streams with, for the other
// commands that call an upstream themselves (calibrate's probe): the one rule
// for a client that carries a user's key. Every request and every redirect it
// follows is checked against the allow-list (WithAllowList; loopback only
// without one), and a redirect that leaves the first request's origin carries
// no credentials (withoutCredentialsAcrossHosts). WithTimeout,
// WithIdleTimeout, WithRootCAs and WithMaxLineBytes apply as to the helper.
func NewUpstreamClient(opts ...Option) *stream.Client {
	c := newConfig(opts)
	if sc, ok := c.streamer.(*stream.Client); ok {
		return sc
	}
	return newEngineClient(c)
}

// allowTransport refuses requests to hosts off the allow-list. The handler
// already checks the URL it is given; this catches redirects, which the engine
// follows for 307 and 308.
type allowTransport struct {
	allow *AllowList
	next  *http.Transport
}

func (t *allowTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.allow.Allows(req.URL) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("helper: upstream host %q (reached by a redirect) is not on the allow-list", req.URL.Host)
	}
	return t.next.RoundTrip(withoutCredentialsAcrossHosts(req))
}

// CloseIdleConnections closes the transport's idle connections.
func (t *allowTransport) CloseIdleConnections() { t.next.CloseIdleConnections() }
