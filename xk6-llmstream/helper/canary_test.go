package helper

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// pipeCanary is a canary whose probes travel over an in-memory pipe (which
// synctest's fake clock can wait on) instead of a loopback socket.
func pipeCanary(busy func() bool) *canary {
	c := newCanary(busy)
	c.open = func() (io.ReadCloser, io.WriteCloser, error) {
		r, w := net.Pipe()
		return r, w, nil
	}
	return c
}

// TestCanaryIdleUntilWoken: with no stream running the canary sends no probe
// (an idle helper costs no CPU); a stream's start wakes it, and it probes
// while streams run. Time is synctest's fake clock.
func TestCanaryIdleUntilWoken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var busy atomic.Bool
		c := pipeCanary(busy.Load)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { defer close(done); c.run(stop) }()

		time.Sleep(50 * c.interval)
		synctest.Wait()
		if n := c.ticks.Load(); n != 0 {
			t.Fatalf("idle canary probed %d times in 50 intervals, want 0", n)
		}

		busy.Store(true)
		c.wake()
		time.Sleep(10*c.interval + c.interval/2)
		synctest.Wait()
		if n := c.ticks.Load(); n != 10 {
			t.Fatalf("busy canary probed %d times in 10.5 intervals, want 10", n)
		}

		busy.Store(false)
		time.Sleep(2 * c.interval) // the probe under way ends, then it waits
		synctest.Wait()
		after := c.ticks.Load()
		time.Sleep(50 * c.interval)
		synctest.Wait()
		if n := c.ticks.Load(); n != after {
			t.Fatalf("canary probed %d times after the streams ended, want 0", n-after)
		}
		close(stop)
		<-done
	})
}

// slowReader returns its stall-th read delay later (on synctest's clock): a
// reader that the machine schedules late once.
type slowReader struct {
	io.ReadCloser
	delay       time.Duration
	stall, read int
}

func (s *slowReader) Read(p []byte) (int, error) {
	s.read++
	if s.read == s.stall {
		time.Sleep(s.delay)
	}
	return s.ReadCloser.Read(p)
}

// TestCanaryMeasuresReadLag: a probe's lag is its read time minus its write
// time. With a reader on time the lag is 0 (synctest's clock does not move
// while goroutines run); a reader that comes back 5 ms late once reads the
// probe waiting for it up to 5 ms after it was written, and catches up.
func TestCanaryMeasuresReadLag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var busy atomic.Bool
		busy.Store(true)
		c := newCanary(busy.Load)
		r, w := net.Pipe()
		buffered := make(chan []byte, 64)
		// A writer side that never blocks (a socket's send buffer): the
		// probes wait in the channel until the slow reader asks.
		go func() {
			for b := range buffered {
				if _, err := w.Write(b); err != nil {
					return
				}
			}
			w.Close()
		}()
		c.open = func() (io.ReadCloser, io.WriteCloser, error) {
			return &slowReader{ReadCloser: r, delay: 5 * time.Millisecond, stall: 5}, chanWriter(buffered), nil
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { defer close(done); c.run(stop) }()
		time.Sleep(40 * c.interval)
		synctest.Wait()
		close(stop)
		<-done
		n := c.ticks.Load()
		if n < 10 {
			t.Fatalf("%d probes recorded in 40 intervals", n)
		}
		var late time.Duration
		for i := int64(0); i < n; i++ {
			late = max(late, time.Duration(c.ring[i].Load()))
		}
		if late < 2*time.Millisecond || late > 5*time.Millisecond {
			t.Errorf("worst probe lag %v with a reader 5 ms late once, want 2–5 ms", late)
		}
		// The request's figure is the p99 of its probes' lags, k6's p(99):
		// with the late probes among n, it lies between the two largest.
		p99, _ := c.lagSince(0)
		if p99 <= 0 || p99 > late {
			t.Errorf("lagSince(0) = %v, want a p99 in (0, %v]", p99, late)
		}
		var lagged int
		for i := int64(0); i < n; i++ {
			if time.Duration(c.ring[i].Load()) > 0 {
				lagged++
			}
		}
		if lagged == 0 || lagged > 2 {
			t.Errorf("%d of %d probes read late, want the one or two waiting while the reader stalled", lagged, n)
		}
	})
}

// chanWriter hands each write to a channel (the send buffer of a socket).
type chanWriter chan []byte

func (c chanWriter) Write(p []byte) (int, error) {
	c <- append([]byte(nil), p...)
	return len(p), nil
}

func (c chanWriter) Close() error {
	close(c)
	return nil
}
