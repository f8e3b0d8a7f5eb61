package helper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
)

// DefaultAddr is where the helper listens unless told otherwise: loopback, on a
// port the system picks.
const DefaultAddr = "127.0.0.1:0"

// ErrTokenRequired is returned by Start when asked to listen on a non-loopback
// address without a token.
var ErrTokenRequired = errors.New("a token is required to listen on a non-loopback address")

// Server is a running helper: an http.Server on its own listener serving a
// Handler. Start it with Start, stop it with Shutdown.
type Server struct {
	handler *Handler
	srv     *http.Server
	ln      net.Listener
	url     string
	cancel  context.CancelFunc // cancels every request's context (hard stop)

	stopCanary chan struct{}  // closed by Shutdown: stops the canary and the CPU sampler
	background sync.WaitGroup // the canary and the CPU sampler

	served    chan struct{} // closed when the serve loop has returned
	serveErr  error         // what it returned, set before served is closed
	closeOnce sync.Once
	err       error
}

// Start listens on addr (DefaultAddr when empty) and serves the helper in the
// background. Unless a token is configured (WithToken), the address must be a
// loopback address: anything else — including an empty host, which means every
// interface — fails with an error wrapping ErrTokenRequired that names the
// address and the --token flag.
func Start(addr string, opts ...Option) (*Server, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	addr, err := literalAddr(addr)
	if err != nil {
		return nil, err
	}
	h := NewHandler(opts...)
	token := h.cfg.token
	if token == "" {
		if err := checkLoopbackAddr(addr); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("helper: listen on %s: %w", addr, err)
	}
	if token == "" {
		// A host name may resolve to anything: check what was actually bound.
		if ap, err := netip.ParseAddrPort(ln.Addr().String()); err != nil || !ap.Addr().Unmap().IsLoopback() {
			ln.Close()
			return nil, tokenRequired(addr, ln.Addr().String())
		}
	}
	h.self = listenAddrPort(ln.Addr())
	baseCtx, cancel := context.WithCancel(context.Background())
	s := &Server{
		handler: h,
		ln:      ln,
		url:     "http://" + ln.Addr().String(),
		cancel:  cancel,
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: DefaultReadHeaderTimeout,
			// No ReadTimeout or WriteTimeout: a stream may last many minutes, and a
			// read deadline firing mid-stream would cancel the request. The body
			// read has its own deadline (WithBodyReadTimeout).
			IdleTimeout: DefaultIdleConnTimeout,
			BaseContext: func(net.Listener) context.Context { return baseCtx },
			ErrorLog:    slog.NewLogLogger(h.cfg.logger.Handler(), slog.LevelWarn),
		},
		served:     make(chan struct{}),
		stopCanary: make(chan struct{}),
	}
	s.background.Go(func() { h.canary.run(s.stopCanary) })
	s.background.Go(func() { h.cpu.Run(s.stopCanary, headroom.CPUSampleInterval) })
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
	}()
	return s, nil
}

// checkLoopbackAddr refuses addresses that are certainly not loopback before
// anything is bound.
func checkLoopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("helper: address %q: %w (want host:port, e.g. %s)", addr, err, DefaultAddr)
	}
	if host == "" {
		return tokenRequired(addr, "every interface")
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && !ip.Unmap().IsLoopback() {
		return tokenRequired(addr, "")
	}
	return nil
}

// literalAddr refuses a listen address whose host is neither an IP literal,
// "localhost" nor empty: the helper never resolves a name through DNS (and a
// form such as 0x7f000001 is not an address). "localhost" becomes 127.0.0.1.
func literalAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("helper: address %q: %w (want host:port, e.g. %s)", addr, err, DefaultAddr)
	}
	switch {
	case host == "":
		return addr, nil
	case host == "localhost":
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	if _, err := netip.ParseAddr(host); err != nil {
		return "", fmt.Errorf("helper: address %q: host %q is not an IP address or localhost (the helper never resolves names; use e.g. %s)", addr, host, DefaultAddr)
	}
	return addr, nil
}

func tokenRequired(addr, detail string) error {
	where := addr
	if detail != "" && detail != addr {
		where = addr + " (" + detail + ")"
	}
	return fmt.Errorf("helper: refusing to listen on %s without a token: %w; pass --token (or set LLMSTREAM_HELPER_TOKEN) or bind a loopback address such as %s",
		where, ErrTokenRequired, DefaultAddr)
}

// URL is the helper's base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.url }

// Addr is the address the helper listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Handler is the served Handler (for its Stats).
func (s *Server) Handler() *Handler { return s.handler }

// Done is closed when the helper has stopped serving: after Shutdown, or on
// its own when its listener failed (then ServeErr says why).
func (s *Server) Done() <-chan struct{} { return s.served }

// ServeErr is why the serve loop stopped on its own; nil after a Shutdown or
// while it serves.
func (s *Server) ServeErr() error {
	select {
	case <-s.served:
		return s.serveErr
	default:
		return nil
	}
}

// DrainGrace bounds, at shutdown, the wait for the answers of the streams that
// Shutdown canceled.
const DrainGrace = 5 * time.Second

// Shutdown stops accepting connections and waits for running streams to end.
// When ctx ends first, it cancels them: each caller is answered with a record
// of kind canceled (status 503), and Shutdown waits up to DrainGrace for those
// answers before it closes every connection (an error then says how many
// streams were cut without an answer). It returns after every request handler
// has returned. It is safe to call more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() {
		var err error
		if serr := s.srv.Shutdown(ctx); serr != nil {
			n := s.handler.Stats().Active
			s.handler.stopStreams()
			dctx, cancel := context.WithTimeout(context.Background(), DrainGrace)
			if derr := s.srv.Shutdown(dctx); derr != nil {
				left := s.handler.Stats().Active
				s.cancel()
				err = errors.Join(s.srv.Close(), fmt.Errorf("helper: %d of %d stream(s) canceled at shutdown were cut without an answer", left, n))
			}
			cancel()
			if n > 0 {
				s.handler.cfg.logger.Warn("canceled at shutdown", "streams", n)
			}
		}
		s.cancel()
		close(s.stopCanary)
		s.background.Wait()
		<-s.served
		s.handler.Wait()
		if c, ok := s.handler.cfg.streamer.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
		s.err = err
	})
	return s.err
}
