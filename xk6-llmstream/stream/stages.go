package stream

import (
	"context"
	"crypto/tls"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// Stages split a request's TTFT into where the time went. Each stage is the
// difference of two consecutive moments of one chain, all measured from
// Record.Start on the same clock:
//
//	start → connection ready → request written → response headers → first event → first text
//	        Connect            Send              Wait               FirstEvent    FirstToken
//
// so Connect + Send + Wait + FirstEvent + FirstToken == TTFT exactly, in
// nanoseconds, for every request with a TTFT. A moment that was not observed
// (the transport reported none, or reported it out of order, e.g. a server
// that answered before the body was written) is taken as the moment before
// it, so no stage is negative and the sum still holds.
type Stages struct {
	// Connect is start → a new connection ready (DNS, TCP connect and TLS);
	// zero when a pooled connection was reused (Reused).
	Connect time.Duration
	// Send is the end of Connect → request written: writing the request
	// headers and body, and for a reused connection taking it from the pool.
	Send time.Duration
	// Wait is request written → response headers: the server's queue, and
	// for servers that send headers after the prompt, the prefill.
	Wait time.Duration
	// FirstEvent is response headers → first complete event of any kind.
	FirstEvent time.Duration
	// FirstToken is first event → first event carrying generated text (role
	// chunks, empty chunks and metadata events come before it).
	FirstToken time.Duration

	// Reused is true when the request went out on a pooled connection.
	Reused bool
	// DNS and TLS are parts of Connect (zero when not done; with several
	// addresses dialed in parallel they need not add up to Connect).
	DNS, TLS time.Duration
}

// Sum is the stages' total: TTFT when the request had one.
func (s *Stages) Sum() time.Duration {
	return s.Connect + s.Send + s.Wait + s.FirstEvent + s.FirstToken
}

// connTrace takes the moments of the connection and the request write from
// net/http/httptrace. Its callbacks run on the transport's goroutines, so the
// moments are atomics (nanoseconds from the start, 0: not seen).
type connTrace struct {
	cl                *call
	dnsStart, dnsDone atomic.Int64
	tlsStart, tlsDone atomic.Int64
	gotConn, wrote    atomic.Int64
	reused            atomic.Bool
}

// moment is the time since the call's start, never 0 (0 means "not seen").
// It reads the real clock, not the Client's (a test clock need not be safe
// for the transport's goroutines): with a test clock the moments are clamped
// into the chain and the stages still add up to TTFT.
func (t *connTrace) moment() int64 { return max(int64(time.Since(t.cl.start)), 1) }

// withTrace returns ctx carrying the call's trace.
func (t *connTrace) withTrace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSStart:          func(httptrace.DNSStartInfo) { t.dnsStart.Store(t.moment()) },
		DNSDone:           func(httptrace.DNSDoneInfo) { t.dnsDone.Store(t.moment()) },
		TLSHandshakeStart: func() { t.tlsStart.Store(t.moment()) },
		TLSHandshakeDone:  func(tls.ConnectionState, error) { t.tlsDone.Store(t.moment()) },
		GotConn: func(i httptrace.GotConnInfo) {
			t.reused.Store(i.Reused)
			t.gotConn.Store(t.moment())
		},
		WroteRequest: func(httptrace.WroteRequestInfo) { t.wrote.Store(t.moment()) },
	})
}

// stages computes the record's stages from the trace and the record's own
// moments (Headers, FirstEvent, TTFT). Without a TTFT the chain ends at the
// last moment that happened and the later stages are zero.
func (t *connTrace) stages(r *Record) Stages {
	var s Stages
	s.Reused = t.reused.Load()
	conn := time.Duration(t.gotConn.Load())
	wrote := time.Duration(t.wrote.Load())
	if s.Reused {
		conn = 0
	}
	chain := []time.Duration{0, conn, wrote, -1, -1, -1}
	if r.Status != 0 {
		chain[3] = r.Headers
	}
	if r.Events > 0 {
		chain[4] = r.FirstEvent
	}
	if r.HasTTFT {
		chain[5] = r.TTFT
	}
	last := len(chain) - 1
	for last > 0 && chain[last] < 0 {
		last--
	}
	out := []*time.Duration{&s.Connect, &s.Send, &s.Wait, &s.FirstEvent, &s.FirstToken}
	prev := time.Duration(0)
	for i := 1; i <= last; i++ {
		m := chain[i]
		if m < prev { // not seen, or out of order: the moment before it
			m = prev
		}
		if m > chain[last] {
			m = chain[last]
		}
		*out[i-1] = m - prev
		prev = m
	}
	s.DNS = span(t.dnsStart.Load(), t.dnsDone.Load())
	s.TLS = span(t.tlsStart.Load(), t.tlsDone.Load())
	return s
}

func span(from, to int64) time.Duration {
	if from == 0 || to < from {
		return 0
	}
	return time.Duration(to - from)
}
