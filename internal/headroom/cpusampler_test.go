package headroom

import (
	"errors"
	"testing"
	"time"
)

// TestCPUSampler: a request's idle share is the counters' change between the
// reading at its start and the latest at its end; with no reading in between,
// or none at all, there is none.
func TestCPUSampler(t *testing.T) {
	t.Parallel()
	readings := []CPUTimes{{Idle: 100, Total: 200}, {Idle: 130, Total: 300}, {Idle: 130, Total: 300}}
	i := 0
	s := NewCPUSampler(func() (CPUTimes, error) { r := readings[i]; i++; return r, nil })
	if _, ok := s.Now(); ok {
		t.Fatal("a reading before any sample")
	}
	if v := s.IdleSince(CPUTimes{}, false); v != nil {
		t.Errorf("no reading: IdleSince = %v, want nil", *v)
	}
	if err := s.Sample(); err != nil {
		t.Fatal(err)
	}
	mark, ok := s.Now()
	if err := s.Sample(); err != nil {
		t.Fatal(err)
	}
	if v := s.IdleSince(mark, ok); v == nil || *v != 0.3 {
		t.Errorf("IdleSince = %v, want 0.3 (30 of 100 hundredths idle)", v)
	}
	mark, ok = s.Now()
	if err := s.Sample(); err != nil {
		t.Fatal(err)
	}
	if v := s.IdleSince(mark, ok); v != nil {
		t.Errorf("no time counted: IdleSince = %v, want nil", *v)
	}
}

// TestCPUSamplerFailedRead: a failed read keeps the last reading, and Run
// returns at once when the counters cannot be read at all (off Linux).
func TestCPUSamplerFailedRead(t *testing.T) {
	t.Parallel()
	fail := false
	s := NewCPUSampler(func() (CPUTimes, error) {
		if fail {
			return CPUTimes{}, errors.New("no /proc/stat")
		}
		return CPUTimes{Idle: 1, Total: 2}, nil
	})
	if err := s.Sample(); err != nil {
		t.Fatal(err)
	}
	fail = true
	if err := s.Sample(); err == nil {
		t.Error("a failed read returned no error")
	}
	if r, ok := s.Now(); !ok || r != (CPUTimes{Idle: 1, Total: 2}) {
		t.Errorf("after a failed read: %+v %v, want the last reading", r, ok)
	}
	done := make(chan struct{})
	go func() { s.Run(make(chan struct{}), time.Hour); close(done) }()
	<-done // Run returned although stop was never closed
}

// TestCPUSamplerRunStops: Run reads at once, then until stop is closed.
func TestCPUSamplerRunStops(t *testing.T) {
	t.Parallel()
	reads := make(chan struct{}, 1)
	s := NewCPUSampler(func() (CPUTimes, error) {
		select {
		case reads <- struct{}{}:
		default:
		}
		return CPUTimes{Idle: 1, Total: 2}, nil
	})
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { s.Run(stop, time.Millisecond); close(done) }()
	<-reads
	close(stop)
	<-done
	if _, ok := s.Now(); !ok {
		t.Error("no reading after Run")
	}
}
