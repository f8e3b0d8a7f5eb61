package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/llmstream/xk6-llmstream/mockllm"
)

// mockServer is the mock LLM served in-process on loopback.
type mockServer struct {
	mock    *mockllm.Server
	srv     *http.Server
	url     string
	serveCh chan error
}

// startMock serves the mock with the profile at path (the default behaviour of
// `xk6-llmstream mock` when path is empty) on 127.0.0.1, a free port: its
// Config is the mock command's without setting flags (run has none but
// --mock-profile).
func startMock(profile string) (*mockServer, error) {
	cfg, err := mockllm.LoadConfig(profile)
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	m, err := mockllm.New(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("mock: listen on 127.0.0.1: %w", err)
	}
	s := &mockServer{
		mock:    m,
		srv:     &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second},
		url:     "http://" + ln.Addr().String(),
		serveCh: make(chan error, 1),
	}
	go func() { s.serveCh <- s.srv.Serve(ln) }()
	return s, nil
}

// stop ends the mock's streams, closes its listener and connections, and waits
// for its serve loop.
func (s *mockServer) stop() error {
	closeErr := s.mock.Close() // streams end at once; flushes the request log
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shutErr := s.srv.Shutdown(ctx)
	if shutErr != nil {
		shutErr = errors.Join(shutErr, s.srv.Close())
	}
	serveErr := <-s.serveCh
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(closeErr, shutErr, serveErr)
}
