package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Server is a server a server sweep starts for one configuration: Command
// run by /bin/sh with the configuration's flags as its arguments ("$@"),
// in a process group of its own, its output in a log file.
type Server struct {
	Command string
	Env     []string // the whole environment of the server
	Args    []string
	Log     string
	// ReadyURL is polled until it answers 2xx, for at most ReadyTimeout.
	ReadyURL     string
	ReadyTimeout time.Duration
	// StopTimeout is how long the server has to end after SIGTERM before
	// its group is killed.
	StopTimeout time.Duration

	cmd    *exec.Cmd
	pgid   int
	exited chan struct{}
	err    error // how it ended, once exited is closed
}

// CheckLoopbackURL reports a URL that is not http(s) to a loopback IP
// literal: a server sweep starts the server on this machine and talks to it
// on 127.0.0.1 (or ::1) only, without resolving a name.
func CheckLoopbackURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s %q: %v", what, raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s %q: want an http:// URL", what, raw)
	}
	ip, err := netip.ParseAddr(u.Hostname())
	if err != nil || !ip.Unmap().IsLoopback() {
		return fmt.Errorf("%s %q: a server sweep talks to 127.0.0.1 only (got host %q)", what, raw, u.Hostname())
	}
	return nil
}

// Start starts the server; Wait then waits for it to answer.
func (s *Server) Start() error {
	log, err := os.Create(s.Log)
	if err != nil {
		return fmt.Errorf("the server's log: %w", err)
	}
	s.cmd = exec.Command("/bin/sh", append([]string{"-c", s.Command + ` "$@"`, "sh"}, s.Args...)...)
	s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr = s.Env, log, log
	ownGroup(s.cmd)
	if err := s.cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %q: %w", s.Command, err)
	}
	s.pgid = s.cmd.Process.Pid
	s.exited = make(chan struct{})
	go func() {
		s.err = s.cmd.Wait()
		log.Close()
		close(s.exited)
	}()
	return nil
}

// Exited is closed when the server's process has ended.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// ExitReason says how the server's process ended ("" while it runs).
func (s *Server) ExitReason() string {
	select {
	case <-s.exited:
	default:
		return ""
	}
	if s.err == nil {
		return "exited (status 0)"
	}
	return "exited (" + s.err.Error() + ")"
}

// Wait polls ReadyURL until it answers 2xx; it fails when the server
// exits, ReadyTimeout passes or ctx ends.
func (s *Server) Wait(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.ReadyTimeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	last := "no answer yet"
	for {
		if why, ok := s.poll(ctx, client); ok {
			return nil
		} else if why != "" {
			last = why
		}
		select {
		case <-s.exited:
			return fmt.Errorf("the server %s before it answered %s; its log: %s", s.ExitReason(), s.ReadyURL, tail(s.Log))
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("the server did not answer %s within %v (last: %s); its log: %s", s.ReadyURL, s.ReadyTimeout, last, tail(s.Log))
			}
			return context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// poll asks ReadyURL once: ok on a 2xx answer, else why not.
func (s *Server) poll(ctx context.Context, client *http.Client) (why string, ok bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.ReadyURL, nil)
	if err != nil {
		return err.Error(), false
	}
	resp, err := client.Do(req)
	if err != nil {
		return err.Error(), false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return resp.Status, false
	}
	return "", true
}

// Stop ends the server's whole process group: SIGTERM, then SIGKILL after
// StopTimeout, then SIGKILL again until no process of the group is left
// (bounded). It reports a group that would not go.
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	signalGroup(s.pgid, false)
	select {
	case <-s.exited:
	case <-time.After(s.StopTimeout):
	}
	for i := 0; i < 50; i++ {
		signalGroup(s.pgid, true)
		if !groupAlive(s.pgid) {
			<-s.exited
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the server's process group %d still has processes after SIGKILL", s.pgid)
}

// tail is the last line or two of a log, for an error.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return path
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	if s == "" {
		return path + " (empty)"
	}
	return fmt.Sprintf("%s (ends: %q)", path, s)
}
