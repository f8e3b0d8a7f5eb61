package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// A mock LLM the runner started: in this process, or in a process of its own
// (Config.MockCmd). Either way it listens on 127.0.0.1, a free port.
type mockServer struct {
	url  string
	stop func() error // ends its streams and has its request log on disk
}

// startMock serves the mock with the profile at path (the default behaviour
// of `xk6-llmstream mock` when path is empty), its request log written to
// logPath when not "": in a child process made by cmd when cmd is not nil
// (and the system can interrupt a child: childMockSupported), else in this
// process.
func startMock(profile, logPath string, cmd func(args ...string) *exec.Cmd) (*mockServer, error) {
	if cmd != nil && childMockSupported {
		return startChildMock(profile, logPath, cmd)
	}
	cfg, err := mockllm.LoadConfig(profile)
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	var (
		logFile *os.File
		bw      *bufio.Writer
	)
	if logPath != "" {
		if logFile, err = os.Create(logPath); err != nil {
			return nil, fmt.Errorf("mock: its log: %w", err)
		}
		bw = bufio.NewWriterSize(logFile, 1<<20)
		cfg.Log = bw
	}
	closeLog := func() error {
		if logFile == nil {
			return nil
		}
		return errors.Join(bw.Flush(), logFile.Close())
	}
	m, err := mockllm.New(cfg)
	if err != nil {
		_ = closeLog()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		m.Close()
		_ = closeLog()
		return nil, fmt.Errorf("mock: listen on 127.0.0.1: %w", err)
	}
	srv := &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stop := func() error {
		closeErr := m.Close() // streams end at once; flushes the request log
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutErr := srv.Shutdown(ctx)
		if shutErr != nil {
			shutErr = errors.Join(shutErr, srv.Close())
		}
		serveErr := <-served
		if errors.Is(serveErr, http.ErrServerClosed) {
			serveErr = nil
		}
		return errors.Join(closeErr, shutErr, serveErr, closeLog())
	}
	return &mockServer{url: "http://" + ln.Addr().String(), stop: stop}, nil
}

// MockStartTimeout bounds how long a child mock may take to print its URL,
// and MockStopTimeout how long it may take to end after an interrupt.
const (
	MockStartTimeout = 30 * time.Second
	MockStopTimeout  = 15 * time.Second
)

// startChildMock runs cmd with the mock's flags; the mock prints its URL as
// its first line, and ends (its log flushed) on an interrupt.
func startChildMock(profile, logPath string, cmd func(args ...string) *exec.Cmd) (*mockServer, error) {
	args := []string{"--addr", "127.0.0.1:0"}
	if profile != "" {
		args = append(args, "--profile", profile)
	}
	if logPath != "" {
		args = append(args, "--log", logPath)
	}
	c := cmd(args...)
	// As k6: its own process group (a Ctrl-C in the terminal reaches the
	// runner only, which stops the mock after k6), and killed with the runner.
	prepare(c)
	stderr := &tailBuffer{max: 4096}
	c.Stderr = stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("mock: starting %s: %w", c.Path, err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, out)
		exited <- c.Wait()
	}()
	fail := func(why string) (*mockServer, error) {
		_ = c.Process.Kill()
		<-exited
		return nil, fmt.Errorf("mock (%s) %s: %s", c.Path, why, strings.TrimSpace(stderr.String()))
	}
	var url string
	select {
	case l, ok := <-lines:
		if !ok || !strings.HasPrefix(l, "http://127.0.0.1:") {
			return fail(fmt.Sprintf("did not print its URL (first line %q)", l))
		}
		url = l
	case <-time.After(MockStartTimeout):
		return fail(fmt.Sprintf("printed no URL within %v", MockStartTimeout))
	}
	stop := func() error {
		_ = c.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if err != nil {
				return fmt.Errorf("mock (%s) ended with %v: %s", c.Path, err, strings.TrimSpace(stderr.String()))
			}
			return nil
		case <-time.After(MockStopTimeout):
			_ = c.Process.Kill()
			<-exited
			return fmt.Errorf("mock (%s) did not end within %v of an interrupt; its log may be incomplete", c.Path, MockStopTimeout)
		}
	}
	return &mockServer{url: url, stop: stop}, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if extra := t.b.Len() - t.max; extra > 0 {
		t.b.Next(extra)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
