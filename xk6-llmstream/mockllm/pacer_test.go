package mockllm

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestPacerNeverWakesEarly(t *testing.T) {
	t.Parallel()
	p := newPacer()
	defer p.close()
	base := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var early []time.Duration
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSleeper()
			for k := 1; k <= 5; k++ {
				due := base.Add(time.Duration(i%37)*97*time.Microsecond + time.Duration(k)*3*time.Millisecond)
				if err := p.sleep(context.Background(), s, due); err != nil {
					t.Error(err)
					return
				}
				if now := time.Now(); now.Before(due) {
					mu.Lock()
					early = append(early, due.Sub(now))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(early) > 0 {
		t.Errorf("%d wake-ups before their due time, e.g. %v early", len(early), early[0])
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.h) != 0 {
		t.Errorf("%d sleepers left in the heap", len(p.h))
	}
}

func TestPacerCancel(t *testing.T) {
	t.Parallel()
	p := newPacer()
	defer p.close()
	ctx, cancel := context.WithCancel(context.Background())
	s := newSleeper()
	done := make(chan error)
	go func() { done <- p.sleep(ctx, s, time.Now().Add(time.Hour)) }()
	waitFor(t, "the sleeper in the heap", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.h) == 1
	})
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("sleep: %v, want context.Canceled", err)
	}
	p.mu.Lock()
	n := len(p.h)
	p.mu.Unlock()
	if n != 0 || s.index != -1 || len(s.ready) != 0 {
		t.Errorf("after cancel: heap %d, index %d, tokens %d", n, s.index, len(s.ready))
	}
	// The sleeper is reusable.
	if err := p.sleep(context.Background(), s, time.Now().Add(time.Millisecond)); err != nil {
		t.Error(err)
	}
	// A due time already past returns at once.
	if err := p.sleep(context.Background(), s, time.Now().Add(-time.Second)); err != nil {
		t.Error(err)
	}
}
