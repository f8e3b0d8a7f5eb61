package helper

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestCanaryIdleUntilWoken: with no stream running the canary does not tick
// (an idle helper costs no CPU); a stream's start wakes it, and it ticks
// while streams run. Time is synctest's fake clock.
func TestCanaryIdleUntilWoken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var busy atomic.Bool
		c := newCanary(busy.Load)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { defer close(done); c.run(stop) }()

		time.Sleep(50 * c.interval)
		synctest.Wait()
		if n := c.ticks.Load(); n != 0 {
			t.Fatalf("idle canary ticked %d times in 50 intervals, want 0", n)
		}

		busy.Store(true)
		c.wake()
		time.Sleep(10*c.interval + c.interval/2)
		synctest.Wait()
		if n := c.ticks.Load(); n != 10 {
			t.Fatalf("busy canary ticked %d times in 10.5 intervals, want 10", n)
		}

		busy.Store(false)
		time.Sleep(2 * c.interval) // the tick under way ends, then it waits
		synctest.Wait()
		after := c.ticks.Load()
		time.Sleep(50 * c.interval)
		synctest.Wait()
		if n := c.ticks.Load(); n != after {
			t.Fatalf("canary ticked %d times after the streams ended, want 0", n-after)
		}
		close(stop)
		<-done
	})
}
