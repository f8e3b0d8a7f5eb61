package mockllm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// gen is one generation request being served: its plan (drawn at arrival),
// its schedule and its output buffer.
type gen struct {
	s   *Server
	d   dialect
	enc encoder
	req *genRequest
	mc  ModelConfig
	p   *pool

	seq      uint64
	model    string // as answered
	id       string
	created  int64 // unix seconds of arrival
	text     *tokens
	endpoint string

	// The plan.
	fault     Fault
	faultAt   int // mid-stream faults strike once this many tokens were sent
	input     int
	cached    int // prompt tokens served from the prefix cache
	reasoning int // reasoning tokens (the first ones)
	total     int // reasoning + answer tokens
	length    bool
	prefill   time.Duration
	decode    *rand.Rand
	tool      *toolCall // the answer's tool call; nil: the answer is text

	// The schedule.
	arrival time.Time
	slotAt  time.Time
	planned int           // tokens scheduled so far
	events  int           // token events scheduled so far
	sched   time.Duration // due offset of the last scheduled event, from slotAt
	due     time.Time     // due time of the events being built
	lastNow time.Time     // when the last event was stamped
	dueOff  int64         // due − arrival, ns
	sleeper *sleeper

	// Output.
	w         http.ResponseWriter
	rc        *http.ResponseController
	buf       []byte
	sent      int // tokens sent
	faultDone bool
	status    int
	outcome   string
	errMsg    string
	log       *RequestLog
	st        encState
	goneNS    atomic.Int64 // when the client's connection went away (unix ns; 0: it did not)
}

// encState is the dialect encoders' per-stream state.
type encState struct {
	prefix      []byte // the constant opening of every chunk
	blockOpen   bool   // Anthropic: a content block is open
	block       int    // Anthropic: index of the open block
	inReasoning bool   // a reasoning phase is open
	end         string // what closes a stamped event; "" is "}\n\n" (SSE)
	n           int    // events written (Responses sequence_number)
}

// generation returns the handler of a generation endpoint.
func (s *Server) generation(d dialect) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.enter() {
			writeError(w, d, http.StatusServiceUnavailable, "server_closed", "the mock server is shutting down")
			return
		}
		defer s.handlers.Done()
		s.serveGeneration(w, r, d)
	}
}

// serveGeneration serves one generation request: admitted, planned, maybe
// faulted, then queued for a slot and answered.
func (s *Server) serveGeneration(w http.ResponseWriter, r *http.Request, d dialect) {
	g := s.newGen(w, r, d)
	defer g.done()
	defer context.AfterFunc(r.Context(), g.stampGone)()

	req, ok := g.admit(r)
	if !ok {
		return
	}
	// The request's work (tokenizing its prompt included) stops when the
	// client leaves or the server closes.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	if err := g.plan(ctx, req); err != nil {
		if ctx.Err() != nil {
			g.gone(err)
			return
		}
		g.status = http.StatusBadRequest
		writeError(w, d, http.StatusBadRequest, "invalid_request_error", "the prompt could not be tokenized: "+err.Error())
		return
	}

	if g.injectFault() {
		return
	}
	g.serve(ctx, cancel, req)
}

// newGen starts a generation request's state, counted and stamped with its
// arrival and sequence number.
func (s *Server) newGen(w http.ResponseWriter, r *http.Request, d dialect) *gen {
	g := &gen{
		s: s, d: d, enc: encoders[d], w: w,
		arrival:  time.Now(),
		seq:      s.seq.Add(1) - 1,
		endpoint: r.URL.Path,
	}
	s.counters.requests.Add(1)
	if s.log != nil {
		g.log = &RequestLog{Seq: g.seq, ArrivalNS: g.arrival.UnixNano(), Endpoint: g.endpoint, Dialect: string(d)}
	}
	return g
}

// serve queues a planned request for a slot of its model's pool (or refuses
// it when the queue is full), then streams or writes the answer.
func (g *gen) serve(ctx context.Context, cancel context.CancelFunc, req *genRequest) {
	s, w, d := g.s, g.w, g.d
	g.p = s.poolFor(g.model)
	waiter, err := g.p.enqueue()
	granted := time.Now() // when the slot was free at once
	if err != nil {
		s.counters.queueFull.Add(1)
		g.countFault(FaultQueueFull)
		g.fault = FaultQueueFull
		g.reject(http.StatusTooManyRequests, "queue full")
		s.writeTooMany(w, d, fmt.Sprintf("mock: %d requests already wait for a slot", s.cfg.QueueLimit))
		return
	}

	streaming := req.Stream && g.fault != FaultNotStreamed
	if streaming && !g.openStream(ctx, cancel, waiter) {
		return
	}
	if err := g.p.wait(ctx, waiter); err != nil {
		g.gone(err)
		return
	}
	defer g.p.release()
	if waiter != nil {
		granted = time.Now()
	}
	g.slotAt = granted
	if g.log != nil {
		g.log.QueueWaitNS = int64(g.slotAt.Sub(g.arrival))
	}

	if streaming {
		err = g.stream(ctx)
	} else {
		err = g.whole(ctx)
	}
	if err != nil {
		g.gone(err)
		return
	}
	if g.outcome == "" {
		g.outcome = "ok"
	}
	if g.fault == FaultNone || g.fault == FaultMalformed {
		s.counters.completed.Add(1)
	}
}

// admit checks the request's API key and reads and parses its body; when
// one is wrong it answers the error (false).
func (g *gen) admit(r *http.Request) (*genRequest, bool) {
	s, w, d := g.s, g.w, g.d
	if !s.keyOK(r) {
		s.counters.unauthorized.Add(1)
		g.fault = FaultUnauthorized
		g.countFault(g.fault)
		g.reject(http.StatusUnauthorized, "missing or wrong API key")
		writeUnauthorized(w, d)
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		s.counters.badRequests.Add(1)
		status := http.StatusBadRequest
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			status = http.StatusRequestEntityTooLarge
		}
		g.reject(status, "reading request body: "+err.Error())
		writeError(w, d, status, "invalid_request", "reading request body: "+err.Error())
		return nil, false
	}
	req, err := parseDialectRequest(d, r, body)
	if err != nil {
		s.counters.badRequests.Add(1)
		g.reject(http.StatusBadRequest, err.Error())
		writeError(w, d, http.StatusBadRequest, "invalid_request", err.Error())
		return nil, false
	}
	return req, true
}

// injectFault answers the injected failures that come before any slot (429,
// 5xx) and reports whether it did.
func (g *gen) injectFault() bool {
	s, w, d := g.s, g.w, g.d
	switch g.fault {
	case FaultHTTP429:
		g.countFault(g.fault)
		g.end(http.StatusTooManyRequests, "fault", "injected 429")
		s.writeTooMany(w, d, "mock: injected rate limit")
		return true
	case FaultHTTP5xx:
		g.countFault(g.fault)
		status := g.mc.Faults.Status5xx
		if status == 0 {
			status = DefaultStatus5xx
		}
		g.end(status, "fault", "injected "+strconv.Itoa(status))
		writeError(w, d, status, "server_error", "mock: injected server error")
		return true
	}

	return false
}

// openStream sends the event-stream headers at once, before waiting for a
// slot; when the client is gone it leaves the queue and reports false.
func (g *gen) openStream(ctx context.Context, cancel context.CancelFunc, waiter *waiter) bool {
	s, w := g.s, g.w
	g.rc = http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", streamContentType(g.d))
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	g.status = http.StatusOK
	s.counters.streams.Add(1)
	if err := g.rc.Flush(); err != nil {
		cancel() // leave the queue, or give back a slot already granted
		if g.p.wait(ctx, waiter) == nil {
			g.p.release()
		}
		g.gone(err)
		return false
	}
	return true
}

// plan draws everything random about the request except the per-event draws,
// from the request's own sources.
func (g *gen) plan(ctx context.Context, req *genRequest) error {
	s := g.s
	g.req = req
	g.model = req.Model
	if g.model == "" {
		g.model = DefaultModelName
	}
	g.mc = s.cfg.model(g.model)
	g.created = g.arrival.Unix()
	var err error
	if g.input, g.cached, err = g.promptTokens(ctx, req); err != nil {
		return err
	}
	g.text = fillerTokens
	if g.mc.Echo && len(req.EchoWords) > 0 {
		g.text = newTokens(req.EchoWords)
	}

	at := g.drawFault(req)
	invalid := g.drawLengths(req)
	if g.fault == FaultPause && g.mc.Faults.PauseAt > 0 {
		at = g.mc.Faults.PauseAt
	}
	g.faultAt = 1 + int(at*float64(g.total-1))
	g.drawPrefill()
	g.decode = requestRand(s.cfg.Seed, g.seq, purposeDecode)

	g.id = g.enc.id(g.seq)
	if g.log != nil {
		g.logPlan(req, invalid)
	}
	return nil
}

// drawFault draws the request's fault and where in the stream it strikes (a
// share of the events).
func (g *gen) drawFault(req *genRequest) (at float64) {
	fr := requestRand(g.s.cfg.Seed, g.seq, purposeFault)
	g.fault, at = g.mc.Faults.draw(fr)
	if !req.Stream && (g.fault == FaultNotStreamed || g.fault.midstream()) {
		g.fault = FaultNone // stream faults need a stream; the draw still happened
	}
	if g.fault == FaultNotStreamed && g.d == gemini {
		// What Google answers a streamGenerateContent without alt=sse: the
		// chunks in one JSON array (application/json).
		req.GeminiArray = true
	}
	return at
}

// drawLengths draws the answer's and the reasoning's lengths within the
// request's bounds (a structured answer is its JSON document, a tool call
// its pieces) and returns why a structured answer is invalid ("" when not).
func (g *gen) drawLengths(req *genRequest) (invalid string) {
	s := g.s
	lr := requestRand(s.cfg.Seed, g.seq, purposeLength)
	limit := min(req.MaxTokens, maxOutputTokens)
	answer := DefaultOutputTokens
	switch {
	case g.mc.OutputTokens.IsSet():
		answer = max(g.mc.OutputTokens.draw(lr, DefaultOutputTokens), 1)
	case limit > 0:
		answer = limit
	}
	if req.Format != nil {
		// A structured answer is a JSON document, as long as it is.
		var toks []string
		toks, invalid = req.Format.jsonAnswer(requestRand(s.cfg.Seed, g.seq, purposeFormat), g.mc.InvalidJSON)
		g.text = newTokens(toks)
		answer = len(toks)
	}
	reasoning := 0
	if g.d != openAICompletions {
		reasoning = g.mc.ReasoningTokens.draw(lr, 0)
		if req.ThinkingBudget > 0 && reasoning > req.ThinkingBudget {
			reasoning = req.ThinkingBudget
		}
	}
	if req.MinTokens > 0 && reasoning+answer < req.MinTokens {
		answer = req.MinTokens - reasoning
	}
	if limit > 0 {
		if req.IgnoreEOS || reasoning+answer > limit {
			reasoning = min(reasoning, limit)
			answer = limit - reasoning
		}
		g.length = reasoning+answer == limit
	}
	if req.Format != nil && answer < len(g.text.raw) && invalid == "" {
		invalid = invalidNotJSON // cut by the limit
	}
	if req.Stream {
		if g.tool = g.planTool(req); g.tool != nil {
			answer, g.length = len(g.tool.pieces), false
		}
	}
	g.reasoning, g.total = reasoning, reasoning+answer
	return invalid
}

// drawPrefill draws the prefill time from the uncached and cached input
// tokens, capped, plus a burst's delay when one covers the arrival.
func (g *gen) drawPrefill() {
	s := g.s
	pr := requestRand(s.cfg.Seed, g.seq, purposePrefill)
	pf := g.mc.Prefill
	work := pf.Base + time.Duration(g.input-g.cached)*pf.PerInputToken + time.Duration(g.cached)*pf.PerCachedToken
	g.prefill = pf.Jitter.apply(work, pr)
	if pf.Max > 0 && g.prefill > pf.Max {
		g.prefill = pf.Max
	}
	if s.cfg.Burst.covers(g.arrival.Sub(s.created)) {
		g.prefill += s.cfg.Burst.Delay
	}
}

// logPlan writes the plan into the request's log entry.
func (g *gen) logPlan(req *genRequest, invalid string) {
	l := g.log
	l.Model, l.Stream, l.Fault = g.model, req.Stream, g.fault
	l.InputTokens, l.CachedTokens = g.input, g.cached
	l.OutputTokens, l.ReasoningTokens = g.total, g.reasoning
	l.FinishReason = g.finishWord()
	if t := g.tool; t != nil {
		l.ToolCall = &RequestLogTool{Name: t.name, ID: t.id, Arguments: t.args}
	}
	l.PrefillNS = int64(g.prefill)
	l.ImageTokens = req.ImageTokens
	if req.Format != nil {
		l.OutputInvalid = invalid
		if invalid == "" {
			l.OutputInvalid = "valid"
		}
	}
}

// promptTokens counts the prompt's tokens with the Server's tokenizer and
// serves its prefix from the prefix cache.
// Tokenizing stops with ctx's error when ctx is done, and fails when a regex
// of the tokenizer exceeds its time bound.
func (g *gen) promptTokens(ctx context.Context, req *genRequest) (input, cached int, err error) {
	s := g.s
	if s.prompts.tok == nil && s.prefix == nil {
		return req.InputTokens, 0, nil
	}
	keys, err := s.prompts.keysContext(ctx, req)
	if err != nil {
		return 0, 0, err
	}
	return len(keys), s.prefix.serve(g.model, keys), nil
}

// next schedules the next token event: whether it is reasoning, the index of
// its first token within its phase, its token count and its due offset from
// slotAt. ok is false after the last one.
func (g *gen) next() (reasoning bool, from, n int, sched time.Duration, ok bool) {
	if g.planned >= g.total {
		return false, 0, 0, 0, false
	}
	reasoning = g.planned < g.reasoning
	from, end := g.planned, g.reasoning
	if !reasoning {
		from, end = g.planned-g.reasoning, g.total
	}
	tpe := g.mc.TokensPerEvent
	lo := max(tpe.Min, 1)
	n = lo
	if tpe.Max > lo {
		n = lo + g.decode.IntN(tpe.Max-lo+1)
	}
	n = min(n, end-g.planned)
	if g.events == 0 {
		g.sched = g.prefill
	} else {
		g.sched += g.gap()
		if g.fault == FaultPause && !g.faultDone && g.planned >= g.faultAt {
			g.faultDone = true
			g.countFault(FaultPause)
			g.sched += g.mc.Faults.PauseDuration
		}
	}
	g.events++
	g.planned += n
	return reasoning, from, n, g.sched, true
}

// gap draws the time from one token event to the next: an ITL draw, slowed by
// the batch, plus a stall now and then.
func (g *gen) gap() time.Duration {
	mc := &g.mc
	itl := mc.ITL.Jitter.apply(mc.ITL.Base, g.decode)
	if mc.ITL.Max > 0 && itl > mc.ITL.Max {
		itl = mc.ITL.Max
	}
	if mc.DecodeSlowdown > 0 {
		if a := g.p.active.Load(); a > 1 {
			itl = clampDuration(float64(itl) * (1 + mc.DecodeSlowdown*float64(a-1)))
		}
	}
	if mc.Stall.Prob > 0 && g.decode.Float64() < mc.Stall.Prob {
		itl += mc.Stall.Jitter.apply(mc.Stall.Duration, g.decode)
	}
	return itl
}

// setDue makes the events built next due at slotAt + sched.
func (g *gen) setDue(sched time.Duration) {
	g.due = g.slotAt.Add(sched)
	g.dueOff = int64(g.due.Sub(g.arrival))
}

// waitDue sleeps until slotAt + sched, or returns early with ctx's error.
func (g *gen) waitDue(ctx context.Context, sched time.Duration) error {
	g.setDue(sched)
	// Due before the last event was stamped: certainly passed, no clock read.
	passed := !g.lastNow.IsZero() && !g.due.After(g.lastNow)
	if passed || time.Until(g.due) <= 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
			return nil
		}
	}
	if g.sleeper == nil {
		g.sleeper = newSleeper()
	}
	return g.s.pacer.sleep(ctx, g.sleeper, g.due)
}

// maxCoalesce bounds the bytes of overdue events written in one flush.
const maxCoalesce = 32 << 10

// tokenEvent is one scheduled token event (see gen.next).
type tokenEvent struct {
	reasoning bool
	from, n   int
	sched     time.Duration
}

func (g *gen) nextEvent() (tokenEvent, bool) {
	var e tokenEvent
	var ok bool
	e.reasoning, e.from, e.n, e.sched, ok = g.next()
	return e, ok
}

// stream writes the SSE answer on schedule. Each event is flushed when
// written, unless the next one is already overdue (the stream is behind, or
// events are due back to back): then they go out together, up to
// maxCoalesce bytes, each still stamped when it was written.
func (g *gen) stream(ctx context.Context) error {
	g.setDue(0)
	g.enc.preamble(g)
	if err := g.flush(); err != nil {
		return err
	}
	ev, ok := g.nextEvent()
	for ok {
		if err := g.waitDue(ctx, ev.sched); err != nil {
			return err
		}
		if g.tool != nil && !ev.reasoning {
			g.enc.(toolEncoder).toolToken(g, ev.from, ev.n)
		} else {
			g.enc.token(g, ev.reasoning, ev.from, ev.n)
		}
		g.sent += ev.n
		if g.fault.midstream() && !g.faultDone && g.sent >= g.faultAt {
			g.faultDone = true
			g.countFault(g.fault)
			g.outcome = "fault"
			switch g.fault {
			case FaultDisconnect:
				err := g.flush() // what was due goes out, then the connection breaks
				g.errMsg = "injected disconnect"
				if err != nil {
					return err
				}
				panic(http.ErrAbortHandler)
			case FaultErrorEvent:
				g.errMsg = "injected error event"
				g.enc.errorEvent(g)
				return g.flush()
			case FaultMalformed:
				g.errMsg = "injected malformed event"
				g.enc.malformed(g)
			}
		}
		if g.sent == g.total {
			g.enc.finish(g)
			return g.flush()
		}
		ev, ok = g.nextEvent()
		if !g.s.noCoalesce && len(g.buf) < maxCoalesce && !g.slotAt.Add(ev.sched).After(g.lastNow) {
			continue // overdue already: write it in the same flush
		}
		if err := g.flush(); err != nil {
			return err
		}
	}
	return g.flush()
}

// whole writes the non-streamed JSON answer when its last token is due.
func (g *gen) whole(ctx context.Context) error {
	var sched time.Duration
	for {
		_, _, _, s, ok := g.next()
		if !ok {
			break
		}
		sched = s
	}
	if err := g.waitDue(ctx, sched); err != nil {
		return err
	}
	g.sent = g.total
	if g.fault == FaultNotStreamed {
		g.countFault(g.fault)
		g.outcome = "fault"
		g.errMsg = "injected non-streamed answer to a streamed request"
	}
	g.buf = g.enc.whole(g, g.buf[:0])
	h := g.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(g.buf)))
	g.w.WriteHeader(http.StatusOK)
	g.status = http.StatusOK
	_, err := g.w.Write(g.buf)
	return err
}

// stamp closes the JSON object of an event being built with the ground-truth
// field, ends the event, and accounts for it.
func (g *gen) stamp(b []byte, kind string, tokens int) []byte {
	now := time.Now()
	ns := now.UnixNano()
	b = append(b, `,"`+GroundTruthField+`":`...)
	b = strconv.AppendInt(b, ns, 10)
	if g.st.end != "" {
		b = append(b, g.st.end...)
	} else {
		b = append(b, "}\n\n"...)
	}
	g.account(now, ns, kind, tokens)
	return b
}

// stampJSON ends a whole JSON answer b (a complete object) with the
// ground-truth field and a newline, and accounts for it as one event.
func (g *gen) stampJSON(b []byte) []byte {
	b = b[:len(b)-1] // the closing brace
	now := time.Now()
	ns := now.UnixNano()
	b = append(b, `,"`+GroundTruthField+`":`...)
	b = strconv.AppendInt(b, ns, 10)
	b = append(b, "}\n"...)
	g.account(now, ns, "json", g.total)
	return b
}

// unstamped accounts for an event that carries no JSON object to stamp (the
// OpenAI [DONE] marker, a malformed event).
func (g *gen) unstamped(kind string) {
	now := time.Now()
	g.account(now, now.UnixNano(), kind, 0)
}

// account records one event written (or about to be) at now.
func (g *gen) account(now time.Time, ns int64, kind string, tokens int) {
	g.lastNow = now
	late := int64(now.Sub(g.due))
	c := &g.s.counters
	c.events.Add(1)
	if tokens > 0 {
		c.tokens.Add(int64(tokens))
	}
	c.lateness.add(late)
	if tokens > 0 && g.sent == 0 && kind != "json" {
		c.ttft.observe(now.Sub(g.arrival)) // the first token of a stream, for /metrics
	}
	if l := g.log; l != nil {
		l.addEvent(g.dueOff, ns, late, tokens, kind)
	}
}

// flush writes the built events and flushes them to the client.
func (g *gen) flush() error {
	if len(g.buf) == 0 {
		return nil
	}
	_, err := g.w.Write(g.buf)
	g.buf = g.buf[:0]
	if err != nil {
		return err
	}
	return g.rc.Flush()
}

func (g *gen) countFault(f Fault) {
	if i := faultIndex(f); i >= 0 {
		g.s.counters.faults[i].Add(1)
	}
}

// reject records an answer refused before any generation.
func (g *gen) reject(status int, msg string) { g.end(status, "rejected", msg) }

func (g *gen) end(status int, outcome, msg string) {
	g.status, g.outcome, g.errMsg = status, outcome, msg
}

// gone records a stream cut by its client or by Close.
func (g *gen) gone(err error) {
	g.stampGone() // the handler may see it before the AfterFunc runs
	g.s.counters.clientGone.Add(1)
	g.outcome = "client_gone"
	if g.s.ctx.Err() != nil {
		g.errMsg = "server closed"
	} else {
		g.errMsg = fmt.Sprintf("%v: %v", errClientGone, err)
	}
}

// stampGone stamps the moment the client left (its connection closed), as
// the server sees it: the ground truth of an abandoned request.
func (g *gen) stampGone() { g.goneNS.CompareAndSwap(0, time.Now().UnixNano()) }

// done finishes the request's log line; it runs last, also when the handler
// panics to break the connection.
func (g *gen) done() {
	if g.log == nil {
		return
	}
	l := g.log
	l.Status, l.Outcome, l.Error, l.SentTokens = g.status, g.outcome, g.errMsg, g.sent
	if g.outcome == "client_gone" && g.s.ctx.Err() == nil {
		l.GoneNS = g.goneNS.Load()
	}
	if l.Fault == "" {
		l.Fault = g.fault
	}
	if l.Model == "" {
		l.Model = g.model
	}
	l.EndNS = time.Now().UnixNano()
	g.s.log.put(l)
}
