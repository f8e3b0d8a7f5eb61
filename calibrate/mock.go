package calibrate

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

	"github.com/llmstream/xk6-llmstream/mockllm"
)

// startMock serves the mock cfg on 127.0.0.1 with its request log written to
// logPath; stop ends it and has the log complete on disk.
type startMock func(cfg mockllm.Config, logPath string) (url string, stop func() error, err error)

// startMockHere serves the mock in this process.
func startMockHere(cfg mockllm.Config, logPath string) (string, func() error, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	bw := bufio.NewWriterSize(logFile, 1<<20)
	cfg.Log = bw
	mock, err := mockllm.New(cfg)
	if err != nil {
		logFile.Close()
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		mock.Close()
		logFile.Close()
		return "", nil, fmt.Errorf("calibrate: mock: listen on 127.0.0.1: %w", err)
	}
	srv := &http.Server{Handler: mock, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := func() error {
		closeErr := mock.Close() // flushes the request log into bw
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = srv.Shutdown(sctx)
		cancel()
		return errors.Join(closeErr, bw.Flush(), logFile.Close())
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// mockStartTimeout bounds how long a child mock may take to print its URL,
// and mockStopTimeout how long it may take to end after an interrupt.
const (
	mockStartTimeout = 30 * time.Second
	mockStopTimeout  = 15 * time.Second
)

// childMock serves the mock in a process of its own, made by mockCmd with
// the mock's flags: cfg goes to it as a profile written to profilePath.
func childMock(mockCmd func(args ...string) *exec.Cmd, profilePath string) startMock {
	return func(cfg mockllm.Config, logPath string) (string, func() error, error) {
		profile, err := cfg.Profile()
		if err != nil {
			return "", nil, err
		}
		if err := os.WriteFile(profilePath, profile, 0o600); err != nil {
			return "", nil, err
		}
		cmd := mockCmd("--addr", "127.0.0.1:0", "--profile", profilePath, "--log", logPath)
		stderr := &tailBuffer{max: 4096}
		cmd.Stderr = stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return "", nil, err
		}
		if err := cmd.Start(); err != nil {
			return "", nil, fmt.Errorf("calibrate: starting the mock (%s): %w", cmd.Path, err)
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
			exited <- cmd.Wait()
		}()
		fail := func(why string) (string, func() error, error) {
			_ = cmd.Process.Kill()
			<-exited
			return "", nil, fmt.Errorf("calibrate: the mock (%s) %s: %s", cmd.Path, why, strings.TrimSpace(stderr.String()))
		}
		var url string
		select {
		case l, ok := <-lines:
			if !ok || !strings.HasPrefix(l, "http://127.0.0.1:") {
				return fail(fmt.Sprintf("did not print its URL (first line %q)", l))
			}
			url = l
		case <-time.After(mockStartTimeout):
			return fail(fmt.Sprintf("printed no URL within %v", mockStartTimeout))
		}
		stop := func() error {
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case err := <-exited:
				if err != nil {
					return fmt.Errorf("the mock (%s) ended with %v: %s", cmd.Path, err, strings.TrimSpace(stderr.String()))
				}
				return nil
			case <-time.After(mockStopTimeout):
				_ = cmd.Process.Kill()
				<-exited
				return fmt.Errorf("the mock (%s) did not end within %v of an interrupt; its log may be incomplete", cmd.Path, mockStopTimeout)
			}
		}
		return url, stop, nil
	}
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
