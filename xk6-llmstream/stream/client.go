package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/redact"
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
	// Abandon, when set, makes the engine leave the stream as a user who
	// closes the tab: it cancels the request and stops reading at the first
	// of its points (see Abandon). The record is then abandoned, not failed.
	Abandon *Abandon
}

// Abandon is where a request is abandoned: AfterMS after the request start
// (0: no time limit), or once AfterTokens output tokens arrived (0: no token
// limit), whichever comes first.
type Abandon struct {
	After       time.Duration
	AfterTokens int
}

// Client sends streaming requests and records their timing. It is safe for
// concurrent use.
type Client struct {
	cfg config
	hc  *http.Client
}

// NewClient returns a Client configured by opts (see the With… options and the
// Default… constants).
func NewClient(opts ...Option) *Client {
	cfg := newConfig(opts)
	if cfg.rt == nil {
		cfg.rt = NewTransport()
	}
	hc := &http.Client{
		Transport: cfg.rt,
		// 307 and 308 keep the method and body and are followed; 301, 302 and
		// 303 would turn the POST into a GET, so they are reported instead.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			if c := req.Response; c != nil && c.StatusCode != http.StatusTemporaryRedirect && c.StatusCode != http.StatusPermanentRedirect {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
	return &Client{cfg: cfg, hc: hc}
}

// CloseIdleConnections closes the idle connections of the Client's transport.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// The causes with which a call cancels its own context.
var (
	errTotalTimeout = errors.New("total timeout")
	errIdleTimeout  = errors.New("idle timeout")
	errAbandoned    = errors.New("abandoned")
)

// Do sends req and reads the stream to its end. It always returns a Record; a
// failed request has Record.Err set and keeps whatever arrived before the failure.
func (c *Client) Do(ctx context.Context, req *Request) *Record {
	rec := &Record{}
	d := req.Dialect
	if d == "" {
		d = DialectAuto
	}
	if d == DialectAuto {
		if pd := dialectFromURL(req.URL); pd != "" {
			d = pd
		}
	}
	cl := &call{c: c, req: req, rec: rec, parent: ctx, scrub: newScrubber(req.Header, req.URL)}
	cl.total = req.Timeout
	if cl.total <= 0 {
		cl.total = c.cfg.timeout
	}
	cl.idle = req.IdleTimeout
	if cl.idle <= 0 {
		cl.idle = c.cfg.idleTimeout
	}
	var body []byte
	var model string
	var err error
	if kind := d.CallKind(); kind != "" {
		body, rec.Kind = req.Body, kind
		model, rec.Batch, err = prepareCall(req.Body, d)
	} else {
		body, model, err = prepareBody(req.Body, d, d.isOpenAI() && !req.NoIncludeUsage)
	}
	cl.b = newBuilder(rec, d, req.KeepText, req.KeepTimeline, model)
	cl.b.scrub = cl.scrub
	if err != nil {
		cl.b.fail(KindInvalidRequest, "%v", err)
		cl.b.finish(false, false)
		return rec
	}
	cl.run(body)
	return rec
}

// call is the state of one Do.
type call struct {
	c      *Client
	req    *Request
	rec    *Record
	b      *builder
	parent context.Context
	ctx    context.Context
	scrub  *redact.Redactor

	total, idle time.Duration
	idleTimer   *time.Timer
	start       time.Time
	lastRead    time.Duration // request start → the latest read that returned body bytes
	cancel      context.CancelCauseFunc
	abandonAt   atomic.Int64 // request start → the abandon timer's cancel, ns (0: it did not fire)
}

func (cl *call) since() time.Duration { return cl.c.cfg.now().Sub(cl.start) }

func (cl *call) run(body []byte) {
	rec, b := cl.rec, cl.b
	ctx, cancel := context.WithCancelCause(cl.parent)
	defer cancel(nil)
	cl.ctx, cl.cancel = ctx, cancel
	tr := &connTrace{cl: cl}
	hreq, ok := cl.newHTTPRequest(tr.withTrace(ctx), body)
	if !ok {
		return
	}
	defer func() { rec.Stages = tr.stages(rec) }()
	totalTimer := time.AfterFunc(cl.total, func() { cancel(errTotalTimeout) })
	defer totalTimer.Stop()
	cl.idleTimer = time.AfterFunc(cl.idle, func() { cancel(errIdleTimeout) })
	defer cl.idleTimer.Stop()

	cl.start = cl.c.cfg.now()
	rec.Start = cl.start
	if a := cl.req.Abandon; a != nil && a.After > 0 {
		t := time.AfterFunc(a.After, func() {
			cl.abandonAt.Store(max(int64(cl.since()), 1))
			cancel(errAbandoned)
		})
		defer t.Stop()
	}
	resp, err := cl.c.hc.Do(hreq)
	if err != nil {
		rec.E2E = cl.since()
		if !cl.failFromContext("waiting for the response headers") {
			b.fail(KindConnect, "%s %s: %v", hreq.Method, redactURL(cl.req.URL), unwrapURLError(err))
		}
		b.finish(false, false)
		return
	}
	defer resp.Body.Close()
	rec.Headers = cl.since()
	rec.Status = resp.StatusCode
	b.responded = true
	cl.idleTimer.Reset(cl.idle)
	tb := &timedBody{r: resp.Body, cl: cl}

	lines := isNDJSON(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		cl.httpError(resp, tb)
		return
	case rec.Kind != "":
		cl.readCall(resp, tb)
		return
	case !lines && !isEventStream(resp.Header.Get("Content-Type")):
		cl.notStreamed(resp, tb)
		return
	}
	if lines && rec.Dialect == DialectAuto {
		rec.Dialect, b.dec = Ollama, newDecoder(Ollama)
	}

	cl.readStream(resp, tb, lines)
}

// newHTTPRequest builds the upstream request with the caller's headers; when
// the URL or a header is invalid it fails and finishes the record (false).
func (cl *call) newHTTPRequest(ctx context.Context, body []byte) (*http.Request, bool) {
	b := cl.b
	u, err := url.Parse(cl.req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		b.fail(KindInvalidRequest, "URL %q is not an absolute http or https URL", redactURL(cl.req.URL))
		b.finish(false, false)
		return nil, false
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, cl.req.URL, bytes.NewReader(body))
	if err != nil {
		b.fail(KindInvalidRequest, "cannot build the request to %s: %v", redactURL(cl.req.URL), err)
		b.finish(false, false)
		return nil, false
	}
	if err := checkHeader(cl.req.Header); err != nil {
		b.fail(KindInvalidRequest, "%v", err)
		b.finish(false, false)
		return nil, false
	}
	for k, vs := range cl.req.Header {
		if strings.EqualFold(k, "Host") && len(vs) > 0 {
			hreq.Host = vs[0]
			continue
		}
		hreq.Header[k] = append([]string(nil), vs...)
	}
	if hreq.Header.Get("Content-Type") == "" {
		hreq.Header.Set("Content-Type", "application/json")
	}
	if hreq.Header.Get("Accept") == "" {
		if cl.rec.Kind != "" {
			hreq.Header.Set("Accept", "application/json")
		} else {
			hreq.Header.Set("Accept", "text/event-stream")
		}
	}
	return hreq, true
}

// readStream reads and decodes the stream of a 2xx answer (server-sent events,
// or NDJSON lines when lines is set), then finishes the record.
func (cl *call) readStream(resp *http.Response, tb *timedBody, lines bool) {
	rec, b := cl.rec, cl.b
	src, err := decodeContent(resp.Header.Get("Content-Encoding"), tb)
	if err != nil {
		rec.E2E = cl.since()
		cl.readFailure(err, "the body's content encoding")
		b.finish(false, false)
		return
	}
	rd := newBodyReader(src, cl.c.cfg.maxLine, lines)
	rd.SetStamp(func() time.Duration { return cl.lastRead })
	if a := cl.req.Abandon; a != nil {
		b.abandonTokens = a.AfterTokens
	}
	end, err := pump(rd, b)
	rec.Bytes = rd.BytesRead()
	switch end {
	case endAbandoned:
		at := cl.since()
		cl.cancel(errAbandoned) // the request's connection closes: the server sees the client leave
		if drainBuffered(rd, b, tb) == endTerminal {
			rec.E2E = b.lastAt // the whole answer had arrived in the last read: not abandoned
			break
		}
		cl.abandon(at)
	case endTerminal:
		rec.E2E = b.lastAt
		cl.drain(resp.Body)
	case endEOF:
		rec.E2E = cl.lastRead
	case endFailed:
		rec.E2E = cl.since()
	case endReadError:
		rec.E2E = cl.since()
		cl.readFailure(err, "reading the stream")
	}
	b.finish(end == endEOF || end == endTerminal, rd.Pending())
}

// failFromContext records a failure caused by the call's own deadlines or by
// the caller's context; it reports false when the context is not the cause.
func (cl *call) failFromContext(during string) bool {
	b := cl.b
	switch cause := context.Cause(cl.ctx); {
	case cause == nil:
		return false
	case errors.Is(cause, errTotalTimeout):
		b.failTimeout("the total timeout (%v) passed %s", cl.total, during)
	case errors.Is(cause, errAbandoned):
		cl.abandon(time.Duration(cl.abandonAt.Load()))
	case errors.Is(cause, errIdleTimeout):
		b.failTimeout("no bytes from the server for %v (idle timeout) %s", cl.idle, during)
	case errors.Is(cause, context.DeadlineExceeded):
		b.failTimeout("the caller's deadline passed %s", during)
	default:
		b.fail(KindCanceled, "the caller canceled the request %s", during)
	}
	return true
}

// abandon records that the request was abandoned at (from its start): not
// a failure; E2E is that moment.
func (cl *call) abandon(at time.Duration) {
	b := cl.b
	b.abandoned = true
	cl.rec.Abandoned = &Abandoned{At: at, Tokens: b.tokensSoFar()}
	cl.rec.E2E = at
}

// readFailure classifies a failed body read: a deadline or cancel, else the
// connection broke after the headers.
func (cl *call) readFailure(err error, during string) {
	if cl.failFromContext(during) {
		return
	}
	var ce *contentError
	if errors.As(err, &ce) {
		cl.b.fail(KindMalformed, "%v", ce)
		return
	}
	cl.b.fail(KindResetMidstream, "the connection broke after %d events (%s): %v", cl.rec.Events, during, err)
}

// drain reads what follows the terminal event for a short while, so that the
// connection can go back to the pool; its errors do not matter.
func (cl *call) drain(body io.Reader) {
	cl.idleTimer.Reset(cl.c.cfg.drain)
	_, _ = io.CopyN(io.Discard, body, maxDrainBytes)
}

// timedBody wraps the response body: every read that returns bytes takes the
// time once and re-arms the idle timer. Once stopped, it reads nothing more
// (io.EOF).
type timedBody struct {
	r       io.Reader
	cl      *call
	stopped bool
}

func (t *timedBody) Read(p []byte) (int, error) {
	if t.stopped {
		return 0, io.EOF
	}
	n, err := t.r.Read(p)
	if n > 0 {
		t.cl.lastRead = t.cl.since()
		t.cl.idleTimer.Reset(t.cl.idle)
	}
	return n, err
}

// checkHeader rejects header names and values that net/http would refuse to
// send, naming the header but never quoting its value.
func checkHeader(h http.Header) error {
	for k, vs := range h {
		if k == "" || strings.IndexFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) }) >= 0 {
			return fmt.Errorf("header name %q is not a valid HTTP token", k)
		}
		for _, v := range vs {
			if strings.ContainsAny(v, "\r\n\x00") {
				return fmt.Errorf("the value of header %q holds a line break or NUL (value not shown)", k)
			}
		}
	}
	return nil
}

// isEventStream reports whether a Content-Type is text/event-stream.
func isEventStream(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && strings.EqualFold(mt, "text/event-stream")
}

// unwrapURLError drops the *url.Error wrapper, whose text repeats the URL
// (with its query, which may hold a key).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// redactURL is a URL as the engine's messages show it: redact.URL, the one
// rule of the project (scheme, host and path; never user info or query).
var redactURL = redact.URL
