package helper

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// Error kinds of the helper's own refusals (answers other than 200). The module
// counts each as a failed request with error kind "helper".
const (
	KindBadRequest   = "helper_bad_request"  // 400 (and 404/405 for a wrong path or method)
	KindUnauthorized = "helper_unauthorized" // 401: token missing or wrong
	KindForbidden    = "helper_forbidden"    // 403: upstream host not on the allow-list
	KindTooLarge     = "helper_too_large"    // 413: request body over the cap
	KindInternal     = "helper_internal"     // 500: the helper failed itself
)

// Paths served by the Handler.
const (
	StreamPath = "/v1/stream"
	HealthPath = "/healthz"
	// HealthSummaryPath answers the Health summary as JSON.
	HealthSummaryPath = "/v1/health"
)

// Handler is the helper's HTTP API: POST /v1/stream runs one upstream stream
// and answers with its record as JSON; GET /healthz answers "ok". It is safe for
// concurrent use and takes no lock on the request path: all requests share one
// Streamer, and counters are atomic.
type Handler struct {
	cfg      config
	inflight sync.WaitGroup

	active   atomic.Int64
	streams  atomic.Int64
	failed   atomic.Int64
	refused  atomic.Int64
	canceled atomic.Int64
	failures failures // failed and refused requests by kind (Failures)

	bufs sync.Pool // *[]byte for request bodies and answers

	canary *canary              // run by a Server; without one, answers carry no client lag
	cpu    *headroom.CPUSampler // run by a Server (Linux); without one, answers carry no CPU idle share
	itl    histogram            // every ITL gap answered, for Health
	lags   lagValues            // every llm_client_lag answered, for Health
	idles  lagValues            // every llm_client_cpu_idle answered, for Health
	sends  lagValues            // every send lag (start − scheduled) of open-loop load, for Health
	self   netip.AddrPort

	// stopCtx ends when the helper shuts down and cancels its streams; their
	// callers are then answered with a canceled record.
	stopCtx     context.Context
	stopStreams context.CancelFunc
}

// Stats are the Handler's counters.
type Stats struct {
	Active   int64 // streams running now
	Streams  int64 // streams run to their end (including failed ones)
	Failed   int64 // of those, streams whose record has an error
	Canceled int64 // of those, streams whose caller went away before the answer
	Refused  int64 // requests refused by the helper itself (4xx)
}

// NewHandler returns a Handler configured by opts.
func NewHandler(opts ...Option) *Handler {
	h := &Handler{
		cfg:  newConfig(opts),
		bufs: sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }},
	}
	h.canary = newCanary(func() bool { return h.active.Load() > 0 })
	h.cpu = headroom.NewCPUSampler(h.cfg.readCPU)
	if h.cfg.clockNow != nil && h.cfg.clockSleep != nil {
		h.canary.now, h.canary.sleep = h.cfg.clockNow, h.cfg.clockSleep
	}
	h.stopCtx, h.stopStreams = context.WithCancel(context.Background())
	return h
}

// Stats returns the current counters.
func (h *Handler) Stats() Stats {
	return Stats{
		Active:   h.active.Load(),
		Streams:  h.streams.Load(),
		Failed:   h.failed.Load(),
		Canceled: h.canceled.Load(),
		Refused:  h.refused.Load(),
	}
}

// Wait blocks until every request being served has returned. Use it after the
// http.Server serving h was shut down or closed.
func (h *Handler) Wait() { h.inflight.Wait() }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.inflight.Add(1)
	defer h.inflight.Done()
	switch r.URL.Path {
	case StreamPath:
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			h.refuse(w, r, &requestError{http.StatusMethodNotAllowed, KindBadRequest,
				"method " + r.Method + " not allowed on " + StreamPath + ": use POST"})
			return
		}
		h.serveStream(w, r)
	case HealthSummaryPath:
		h.serveHealth(w, r)
	case HealthPath:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			h.refuse(w, r, &requestError{http.StatusMethodNotAllowed, KindBadRequest,
				"method " + r.Method + " not allowed on " + HealthPath + ": use GET"})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", "2")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("ok"))
	default:
		h.refuse(w, r, &requestError{http.StatusNotFound, KindBadRequest,
			"no such path " + strconv.Quote(r.URL.Path) + ": the helper serves POST " + StreamPath + " and GET " + HealthPath})
	}
}

// serveStream serves one POST of the stream path: it admits and parses the
// request, streams upstream, records the result and answers.
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request) {
	if !h.admit(w, r) {
		return
	}
	bp := h.getBuf()
	defer h.putBuf(bp)
	body, rerr := h.readBody(w, r, (*bp)[:0])
	*bp = body
	if rerr != nil {
		h.refuse(w, r, rerr)
		return
	}
	p, rerr := parseStreamRequest(body, &h.cfg)
	if rerr == nil {
		rerr = h.checkUpstream(p)
	}
	if rerr != nil {
		h.refuse(w, r, rerr)
		return
	}
	rec, rr, gone := h.measure(r, p)
	if gone {
		// The k6 side went away; the engine has stopped the upstream request.
		h.canceled.Add(1)
		return
	}
	h.observe(rec, rr)
	out := appendAnswer((*bp)[:0], newAnswer(rr, rec, &answerOptions{
		samples:      p.samples,
		keepText:     p.keepText,
		keepTimeline: p.req.KeepTimeline,
		maxText:      h.cfg.maxText,
		red:          p.redactor,
	}))
	*bp = out
	writeJSON(w, answerStatus(rec), out)
}

// admit refuses a request that looped back through a helper or lacks the
// helper's token, and says whether it may go on.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get(HopHeader) != "" {
		h.refuse(w, r, loopRefusal())
		return false
	}
	if h.cfg.token != "" && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="xk6-llmstream helper"`)
		h.refuse(w, r, &requestError{http.StatusUnauthorized, KindUnauthorized,
			"this helper requires its token: send \"Authorization: Bearer <token>\" (the module does when LLMSTREAM_HELPER_TOKEN or the Client's helperToken is set)"})
		return false
	}
	return true
}

// checkUpstream refuses an upstream off the allow-list or the helper itself.
func (h *Handler) checkUpstream(p *parsed) *requestError {
	if !h.cfg.allow.Allows(p.url) {
		return &requestError{http.StatusForbidden, KindForbidden,
			"upstream host " + strconv.Quote(p.url.Host) + " is not on the helper's allow-list (" +
				h.cfg.allow.String() + "); start the helper with --allow " + p.url.Hostname() +
				" (xk6-llmstream run allows the host of LLM_BASE_URL)"}
	}
	if isSelf(p.url, h.self) {
		return selfRefusal(p.url)
	}
	return nil
}

// measure streams the request upstream and writes its record, with the
// server's load at the start, the audits and the client's lag; gone says
// the k6 side went away meanwhile.
func (h *Handler) measure(r *http.Request, p *parsed) (*stream.Record, *records.Record, bool) {
	mark := h.canary.mark()
	cpuMark, cpuOK := h.cpu.Now()
	server := h.cfg.sampler.Latest() // the server's load at the start, for the record
	gpu := h.cfg.gpuSampler.Latest()
	if gpu == nil && server != nil && server.GPU != nil { // one page with both
		gpu = server
	}
	rec := h.stream(r, p)
	h.streams.Add(1)
	if rec == nil { // a Streamer must always return a record; never drop the request
		rec = &stream.Record{Err: &stream.Error{Kind: stream.KindInvalidRequest, Message: "helper: the engine returned no record"}}
	}
	if rec.Err != nil {
		h.failed.Add(1)
		h.failures.add(string(rec.Err.Kind), p.redactor.String(rec.Err.Message))
	}
	h.logStream(r, p, rec)
	gone := r.Context().Err() != nil
	rr := toRecord(rec, p, gone, server)
	if gpu != nil && gpu.GPU != nil {
		g := gpu.GPU
		rr.GPU = &records.GPU{UtilPct: g.Util, MemUsedMiB: g.MemUsed, PowerW: g.Power, SMClockMHz: g.Clock, GPUs: g.GPUs}
	}
	if p.audit != nil {
		p.audit.audit(r.Context(), rec, rr)
	}
	if p.output != nil {
		p.output.check(r.Context(), rec, rr)
		if oc := rr.OutputCheck; oc != nil {
			oc.Detail = p.redactor.String(oc.Detail)
		}
	}
	if lag, ok := h.canary.lagSince(mark); ok {
		ns := int64(lag)
		rr.ClientLagNS = &ns
	}
	rr.CPUIdle = h.cpu.IdleSince(cpuMark, cpuOK)
	h.record(rr)
	return rec, rr, gone
}

// logStream logs a stream at debug level.
func (h *Handler) logStream(r *http.Request, p *parsed, rec *stream.Record) {
	log := h.cfg.logger
	if !log.Enabled(r.Context(), slog.LevelDebug) {
		return
	}
	kind := ""
	if rec.Err != nil {
		kind = string(rec.Err.Kind)
	}
	log.Debug("stream", "upstream", p.logURL, "api", string(rec.Dialect), "status", rec.Status,
		"error", kind, "ttft", rec.TTFT, "e2e", rec.E2E, "events", rec.Events)
}

// observe adds an answered request to the helper's health figures: the
// inter-token gaps, the client's lag and the send lag (warm-up excluded).
func (h *Handler) observe(rec *stream.Record, rr *records.Record) {
	for _, g := range rec.ITL {
		h.itl.add(g)
	}
	if rr.ClientLagNS != nil && !rr.Warmup {
		h.lags.add(metrics.MS(*rr.ClientLagNS))
	}
	if rr.CPUIdle != nil && !rr.Warmup {
		h.idles.add(*rr.CPUIdle)
	}
	if lag, ok := metrics.SendLagNS(rr); ok && !rr.Warmup {
		h.sends.add(metrics.MS(lag))
	}
}

// stream runs the upstream request, counted as active while it runs. It ends
// when the caller goes away or when the helper cancels its streams at shutdown.
func (h *Handler) stream(r *http.Request, p *parsed) *stream.Record {
	if h.active.Add(1) == 1 {
		h.canary.wake()
	}
	defer h.active.Add(-1)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(h.stopCtx, cancel)
	defer stop()
	return h.cfg.streamer.Do(ctx, p.req)
}

// readBody appends the request body to buf, at most maxBody bytes, within the
// body read timeout.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, buf []byte) ([]byte, *requestError) {
	if r.ContentLength > h.cfg.maxBody {
		return buf, tooLarge(h.cfg.maxBody)
	}
	rc := http.NewResponseController(w)
	if h.cfg.bodyReadTimeout > 0 {
		if err := rc.SetReadDeadline(time.Now().Add(h.cfg.bodyReadTimeout)); err == nil {
			defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
		}
	}
	body := http.MaxBytesReader(w, r.Body, h.cfg.maxBody)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return buf, tooLarge(h.cfg.maxBody)
			}
			return buf, badRequest("reading the request body: %v", err)
		}
	}
}

func tooLarge(max int64) *requestError {
	return &requestError{http.StatusRequestEntityTooLarge, KindTooLarge,
		"request body is larger than the helper's limit of " + strconv.FormatInt(max, 10) + " bytes (--max-body)"}
}

// authorized checks "Authorization: Bearer <token>" in constant time.
func (h *Handler) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(h.cfg.token)) == 1
}

// logAllRefusals is how many refusals are logged before only every
// logEveryRefusal-th one is (a misconfigured test can make thousands a second).
const (
	logAllRefusals  = 10
	logEveryRefusal = 1000
)

// refuse answers a helper-level refusal, closes the connection, and logs it
// (without header values). Closing matters: the request body may be partly
// unread (a 401 before it is read, a body that stopped arriving), and the
// server would otherwise wait for the rest of it before answering.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, e *requestError) {
	h.failures.add(e.kind, e.msg)
	if n := h.refused.Add(1); n <= logAllRefusals || n%logEveryRefusal == 0 {
		h.cfg.logger.Warn("refused", "status", e.status, "kind", e.kind, "message", e.msg,
			"method", r.Method, "path", safePath(r.URL.Path), "remote", r.RemoteAddr, "refused_total", n)
	}
	w.Header().Set("Connection", "close")
	// End reads at once, so that the server does not wait for an unread rest
	// of the body before closing (it drains a body it did not read).
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	writeJSON(w, e.status, appendRefusal(nil, e.kind, e.msg))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	hdr := w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	hdr.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if _, err := w.Write(body); err == nil { // the k6 side may be gone; nothing else to do
		_ = http.NewResponseController(w).Flush()
	}
}

// maxPooledBuf keeps unusually large buffers (big timelines or texts) from
// staying in the pool.
const maxPooledBuf = 256 << 10

func (h *Handler) getBuf() *[]byte { return h.bufs.Get().(*[]byte) }

func (h *Handler) putBuf(b *[]byte) {
	if cap(*b) <= maxPooledBuf {
		*b = (*b)[:0]
		h.bufs.Put(b)
	}
}

// serveHealth answers GET /v1/health: the Health summary as JSON.
func (h *Handler) serveHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		h.refuse(w, r, &requestError{http.StatusMethodNotAllowed, KindBadRequest,
			"method " + r.Method + " not allowed on " + HealthSummaryPath + ": use GET"})
		return
	}
	b, err := json.Marshal(h.Health())
	if err != nil { // a Health always encodes; never answer a half body
		h.refuse(w, r, &requestError{http.StatusInternalServerError, KindBadRequest, "encoding the health summary: " + err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, append(b, '\n'))
}
