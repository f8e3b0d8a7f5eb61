package helper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/internal/version"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// StreamRequest is the JSON body of POST /v1/stream (see docs/helper-api.md).
// Unknown fields are ignored, so that a newer module can talk to an older helper.
type StreamRequest struct {
	// URL is the full upstream endpoint (http or https).
	URL string `json:"url"`
	// API is the dialect: one of stream.Dialects() (openai-chat,
	// openai-completions, anthropic-messages, openai-responses, gemini, cohere,
	// ollama, auto). Empty means auto.
	API string `json:"api,omitempty"`
	// Headers are sent upstream as given (API keys included); they are never
	// logged or echoed.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the upstream JSON request object.
	Body json.RawMessage `json:"body"`
	// IncludeUsage asks OpenAI dialects for the usage chunk (default true).
	IncludeUsage *bool `json:"include_usage,omitempty"`
	// TimeoutMS bounds the whole request (default: the helper's).
	TimeoutMS *float64 `json:"timeout_ms,omitempty"`
	// IdleTimeoutMS bounds the wait for the next bytes (default: the helper's).
	IdleTimeoutMS *float64 `json:"idle_timeout_ms,omitempty"`
	// KeepText returns text and reasoning.
	KeepText bool `json:"keep_text,omitempty"`
	// KeepTimeline returns the per-event timeline.
	KeepTimeline bool `json:"keep_timeline,omitempty"`
	// Samples are the Client's choices that shape the answer's samples
	// (metrics.Options): itl mode and fraction, stages, slo, prices and the
	// expected output length.
	Samples *SampleOptions `json:"samples,omitempty"`
	// ID, Tags and Warmup go into the request's record (--records) only.
	ID     string            `json:"id,omitempty"`
	Tags   map[string]string `json:"tags,omitempty"`
	Warmup bool              `json:"warmup,omitempty"`
	// ScheduledUnixNS is when the load generator meant to send the request
	// (unix ns; open-loop load: arrivals(), replay()). It goes into the record
	// (scheduled_ns) and adds llm_ttft_scheduled and llm_e2e_scheduled.
	// Absent or 0: none.
	ScheduledUnixNS int64 `json:"scheduled_unix_ns,omitempty"`
	// ModuleVersion is the VERSION of the llmstream.js that sent the request;
	// one other than the helper's (internal/version.Version) is refused.
	// Absent (older or other clients) is accepted.
	ModuleVersion string `json:"module_version,omitempty"`
	// TokenAudit counts the streamed text with a tokenizer and compares it
	// with the server's usage (off when absent; see audit.go).
	TokenAudit *TokenAuditOptions `json:"token_audit,omitempty"`
	// Abandon makes the helper leave this request as a user who closes the
	// tab: it cancels the upstream request and stops reading after_ms after
	// the start or once after_tokens output tokens arrived, whichever comes
	// first. The request is then recorded as abandoned (records.Abandoned),
	// not failed. Absent: read to the end.
	Abandon *AbandonOptions `json:"abandon,omitempty"`
}

// AbandonOptions are where a request is abandoned; at least one is set.
type AbandonOptions struct {
	AfterMS     *float64 `json:"after_ms,omitempty"`
	AfterTokens *int     `json:"after_tokens,omitempty"`
}

// abandon validates the options (nil: none).
func (a *AbandonOptions) abandon() (*stream.Abandon, *requestError) {
	if a == nil {
		return nil, nil
	}
	if a.AfterMS == nil && a.AfterTokens == nil {
		return nil, badRequest(`"abandon" needs "after_ms" or "after_tokens"`)
	}
	out := &stream.Abandon{}
	if a.AfterMS != nil {
		d, rerr := msOption("abandon.after_ms", a.AfterMS, 0)
		if rerr != nil {
			return nil, rerr
		}
		out.After = d
	}
	if a.AfterTokens != nil {
		if *a.AfterTokens < 1 {
			return nil, badRequest(`"abandon.after_tokens" must be a whole number ≥ 1, got %d`, *a.AfterTokens)
		}
		out.AfterTokens = *a.AfterTokens
	}
	return out, nil
}

// hopHeaders are never forwarded upstream: they describe the hop to the helper
// or are set by the HTTP client itself.
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true,
	"Trailer": true, "Transfer-Encoding": true, "Upgrade": true, "Host": true,
	"Content-Length": true,
}

// parsed is a validated request, ready for the engine.
type parsed struct {
	req      *stream.Request
	url      *url.URL
	samples  *metrics.Options
	redactor *redact.Redactor
	logURL   string       // the upstream as logs may show it
	keepText bool         // the answer returns the text (the engine may keep it for the audit)
	audit    *auditor     // the token audit, nil when off
	output   *outputCheck // the structured-output check, nil when none was asked for
	// For the request's record:
	id          string
	tags        map[string]string
	warmup      bool
	scheduledNS int64
}

// requestError is a helper-level refusal: an HTTP status and an error kind.
type requestError struct {
	status int
	kind   string
	msg    string
}

func (e *requestError) Error() string { return e.kind + ": " + e.msg }

func badRequest(format string, args ...any) *requestError {
	return &requestError{http.StatusBadRequest, KindBadRequest, fmt.Sprintf(format, args...)}
}

// parseStreamRequest decodes and validates a POST /v1/stream body. Messages
// never quote header values or the body.
func parseStreamRequest(data []byte, c *config) (*parsed, *requestError) {
	var sr StreamRequest
	if rerr := decodeJSON(data, &sr); rerr != nil {
		return nil, rerr
	}
	if rerr := checkModuleVersion(sr.ModuleVersion); rerr != nil {
		return nil, rerr
	}
	if sr.URL == "" {
		return nil, badRequest(`missing "url": the upstream endpoint, e.g. http://127.0.0.1:8000/v1/chat/completions`)
	}
	u, err := url.Parse(sr.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, badRequest(`"url" %s is not an absolute http or https URL`, strconv.Quote(redact.URL(sr.URL)))
	}
	d, ok := stream.ParseDialect(sr.API)
	if !ok {
		return nil, badRequest(`unknown "api" %q: want one of %s`, sr.API, dialectNames())
	}
	body := bytes.TrimSpace(sr.Body)
	if len(body) == 0 || string(body) == "null" {
		return nil, badRequest(`missing "body": the upstream JSON request object`)
	}
	if body[0] != '{' {
		return nil, badRequest(`"body" must be a JSON object`)
	}
	timeout, rerr := msOption("timeout_ms", sr.TimeoutMS, c.timeout)
	if rerr != nil {
		return nil, rerr
	}
	idle, rerr := msOption("idle_timeout_ms", sr.IdleTimeoutMS, c.idleTimeout)
	if rerr != nil {
		return nil, rerr
	}
	h, rerr := upstreamHeader(sr.Headers)
	if rerr != nil {
		return nil, rerr
	}
	samples, rerr := sr.Samples.options()
	if rerr != nil {
		return nil, rerr
	}
	audit, output, abandon, rerr := sr.checks(body)
	if rerr != nil {
		return nil, rerr
	}
	p := &parsed{
		url:      u,
		samples:  samples,
		keepText: sr.KeepText,
		audit:    audit,
		output:   output,
		req: &stream.Request{
			URL:            sr.URL,
			Dialect:        d,
			Header:         h,
			Body:           body,
			NoIncludeUsage: sr.IncludeUsage != nil && !*sr.IncludeUsage,
			Timeout:        timeout,
			IdleTimeout:    idle,
			KeepText:       sr.KeepText || audit != nil || output != nil,
			KeepTimeline:   sr.KeepTimeline,
			Abandon:        abandon,
		},
	}
	p.redactor = redact.New(h, u)
	p.logURL = p.redactor.String(redact.URL(sr.URL))
	p.id, p.tags, p.warmup = sr.ID, sr.Tags, sr.Warmup
	if sr.ScheduledUnixNS < 0 {
		return nil, badRequest(`"scheduled_unix_ns" must be a unix time in ns ≥ 0, got %d`, sr.ScheduledUnixNS)
	}
	p.scheduledNS = sr.ScheduledUnixNS
	return p, nil
}

// checks are the request's token audit, structured-output check and
// abandonment, each nil when not asked for.
func (sr *StreamRequest) checks(body []byte) (*auditor, *outputCheck, *stream.Abandon, *requestError) {
	audit, rerr := sr.TokenAudit.auditor()
	if rerr != nil {
		return nil, nil, nil, rerr
	}
	output, rerr := newOutputCheck(body)
	if rerr != nil {
		return nil, nil, nil, rerr
	}
	abandon, rerr := sr.Abandon.abandon()
	return audit, output, abandon, rerr
}

// decodeJSON decodes a request body into v, with an error that says where
// the JSON breaks or which field has the wrong type.
func decodeJSON(data []byte, v any) *requestError {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return badRequest("request is not valid JSON: %v (at byte %d)", se, se.Offset)
	case errors.As(err, &te):
		return badRequest("field %q: want %s, got JSON %s", te.Field, te.Type, te.Value)
	default:
		return badRequest("request is not a JSON object: %v", err)
	}
}

// upstreamHeader checks the request's headers and returns those sent
// upstream: hop-by-hop headers dropped, the helper's hop mark added.
func upstreamHeader(headers map[string]string) (http.Header, *requestError) {
	h := make(http.Header, len(headers))
	for name, value := range headers {
		if !validHeaderName(name) {
			return nil, badRequest("header name %q is not a valid HTTP header name", name)
		}
		if strings.ContainsAny(value, "\r\n\x00") {
			return nil, badRequest("header %q: value holds a line break or NUL", name)
		}
		key := http.CanonicalHeaderKey(name)
		if hopHeaders[key] {
			continue
		}
		h[key] = append(h[key], value)
	}
	h.Set(HopHeader, "1") // a helper that receives it refuses the request (no loops)
	return h, nil
}

// checkModuleVersion refuses a module whose version is not the helper's: the
// two are built and released together, and a mismatch means the script uses
// an llmstream.js from another release. An empty version is accepted.
func checkModuleVersion(v string) *requestError {
	if v == "" || v == version.Version {
		return nil
	}
	return badRequest("version mismatch: llmstream.js is version %s but this helper is version %s; "+
		"use the llmstream.js of the same release (xk6-llmstream init writes it)", strconv.Quote(v), version.Version)
}

// dialectNames lists the accepted "api" values for a refusal.
func dialectNames() string {
	var names []string
	for _, d := range stream.Dialects() {
		names = append(names, string(d))
	}
	for _, d := range stream.CallDialects() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}

// MinTimeout is the shortest timeout_ms or idle_timeout_ms a request may set:
// anything shorter cannot even reach a server on loopback, and a value such as
// 1e-300 would round to no timeout at all.
const MinTimeout = time.Millisecond

// msOption turns an optional millisecond count into a Duration (def when absent).
func msOption(name string, ms *float64, def time.Duration) (time.Duration, *requestError) {
	if ms == nil {
		return def, nil
	}
	v := *ms
	if math.IsNaN(v) || v <= 0 || v > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, badRequest("%q must be a positive number of milliseconds, got %v", name, v)
	}
	if v < float64(MinTimeout/time.Millisecond) {
		return 0, badRequest("%q is %v: want at least %v milliseconds", name, v, float64(MinTimeout/time.Millisecond))
	}
	return time.Duration(v * float64(time.Millisecond)), nil
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// withoutCredentialsAcrossHosts is the request a redirect sends: req itself,
// or, when the redirect chain has left the first request's host (for one of
// its hops or for req), a copy that carries no credentials there — only the
// harmless headers (redact.Harmless: Content-Type, Accept, Anthropic-Version,
// …) and HopHeader are kept; Authorization, x-api-key, api-key,
// x-goog-api-key, Cookie, Proxy-Authorization and every other header the
// request gave (all of which the redaction treats as secrets) are dropped,
// and so is the Referer, which carries the first URL's query. Go's client
// alone forwards all of them but Authorization and Cookie, and those too to
// another port of the same host name.
//
// A host is scheme, host name and port (an origin, RFC 6454): another port
// is another server, which may belong to someone else, so it gets no keys.
func withoutCredentialsAcrossHosts(req *http.Request) *http.Request {
	if req.Response == nil { // not a redirect
		return req
	}
	cross := false
	for prev := req.Response.Request; prev != nil && !cross; {
		cross = origin(prev.URL) != origin(req.URL)
		if prev.Response == nil {
			break
		}
		prev = prev.Response.Request
	}
	if !cross {
		return req
	}
	out := req.Clone(req.Context())
	for name := range out.Header {
		if !redact.Harmless(http.CanonicalHeaderKey(name)) && http.CanonicalHeaderKey(name) != HopHeader {
			delete(out.Header, name)
		}
	}
	return out
}

// origin is a URL's scheme, lower-case host name and port (the scheme's
// default when it has none).
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")) + ":" + port
}
