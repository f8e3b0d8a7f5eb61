package mockllm

import (
	"container/heap"
	"context"
	"runtime"
	"sync"
	"time"
)

// The pacer wakes streams when their next event is due.
//
// Why not a time.Timer per stream: the Go runtime sleeps in epoll_wait, whose
// timeout has millisecond resolution, so an idle or lightly loaded process
// wakes timers up to about 1 ms late (measured here: a 50 µs timer fires
// ~1 ms late; a p50 lateness of ~0.5 ms at 1,000 tokens/s). The pacer keeps
// one heap of sleeping streams and one goroutine that waits with a Go timer
// while the next due time is far, and with nanosleep (high-resolution, about
// 50 µs of kernel slack) for the last stretch, then wakes every stream due.
const (
	// pacerFine is the stretch before a due time that the pacer waits with
	// nanosleep rather than a Go timer.
	pacerFine = 2 * time.Millisecond
	// pacerMaxNap bounds one nanosleep, so that a stream due sooner than the
	// one being waited for (it arrived during the nap) is at most this late.
	pacerMaxNap = 200 * time.Microsecond
)

// sleeper is one stream's registration with the pacer; a stream reuses its
// own.
type sleeper struct {
	due   int64         // ns since pacer.base
	ready chan struct{} // capacity 1: the pacer's wake-up
	index int           // in the heap, -1 when not in it
	timer *time.Timer   // the stream's own timer
}

func newSleeper() *sleeper { return &sleeper{ready: make(chan struct{}, 1), index: -1} }

type pacer struct {
	base time.Time

	mu sync.Mutex
	h  sleeperHeap

	kick chan struct{} // capacity 1: a new earliest due time, or the first
	stop chan struct{}
	done chan struct{}
}

func newPacer() *pacer {
	p := &pacer{
		base: time.Now(),
		kick: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go p.run()
	return p
}

// close stops the pacer's goroutine and waits for it. Sleepers still
// registered are not woken: their contexts end them.
func (p *pacer) close() {
	close(p.stop)
	<-p.done
}

func (p *pacer) now() int64 { return int64(time.Since(p.base)) }

// sleep returns when due has come, or with ctx's error if ctx ends first.
//
// It waits for whichever comes first of the pacer's wake-up and the stream's
// own Go timer: when the process is busy, the runtime checks its timers at
// every scheduling point and the timer is the more punctual (the pacer may
// wait behind runnable goroutines); when it is idle, the pacer's nanosleep is.
func (p *pacer) sleep(ctx context.Context, s *sleeper, due time.Time) error {
	s.due = int64(due.Sub(p.base))
	d := time.Duration(s.due - p.now())
	if d <= 0 {
		return ctx.Err()
	}
	p.mu.Lock()
	heap.Push(&p.h, s)
	first := s.index == 0
	p.mu.Unlock()
	if first {
		select {
		case p.kick <- struct{}{}:
		default:
		}
	}
	if s.timer == nil {
		s.timer = time.NewTimer(d)
	} else {
		s.timer.Reset(d)
	}
	var err error
	select {
	case <-s.ready:
		s.timer.Stop()
		return nil
	case <-s.timer.C:
	case <-ctx.Done():
		s.timer.Stop()
		err = ctx.Err()
	}
	p.mu.Lock()
	if s.index >= 0 {
		heap.Remove(&p.h, s.index)
	} else {
		<-s.ready // popped meanwhile: the token is there (sent under mu)
	}
	p.mu.Unlock()
	return err
}

func (p *pacer) run() {
	defer close(p.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := p.now()
		next := int64(-1)
		woke := false
		p.mu.Lock()
		for len(p.h) > 0 && p.h[0].due <= now {
			s := heap.Pop(&p.h).(*sleeper)
			s.ready <- struct{}{}
			woke = true
		}
		if len(p.h) > 0 {
			next = p.h[0].due
		}
		p.mu.Unlock()
		if woke {
			runtime.Gosched() // let the woken streams run on this P
		}

		wait := time.Duration(next - p.now())
		switch {
		case next < 0:
			select {
			case <-p.kick:
			case <-p.stop:
				return
			}
		case wait > pacerFine:
			timer.Reset(wait - pacerFine)
			select {
			case <-timer.C:
			case <-p.kick:
			case <-p.stop:
				return
			}
		case wait > 0:
			select {
			case <-p.stop:
				return
			default:
			}
			nap(min(wait, pacerMaxNap))
		}
	}
}

// sleeperHeap is a min-heap of sleepers by due time.
type sleeperHeap []*sleeper

func (h sleeperHeap) Len() int           { return len(h) }
func (h sleeperHeap) Less(i, j int) bool { return h[i].due < h[j].due }
func (h sleeperHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *sleeperHeap) Push(x any) {
	s := x.(*sleeper)
	s.index = len(*h)
	*h = append(*h, s)
}
func (h *sleeperHeap) Pop() any {
	old := *h
	n := len(old)
	s := old[n-1]
	old[n-1] = nil
	s.index = -1
	*h = old[:n-1]
	return s
}
