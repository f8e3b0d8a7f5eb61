package mockllm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// errQueueFull is returned by pool.acquire when the queue is at its limit.
var errQueueFull = errors.New("mockllm: queue full")

// pool is a set of decode slots with a FIFO queue: at most slots streams hold a
// slot at once (0: unlimited); the others wait in arrival order; beyond
// queueLimit waiters (0: unlimited) acquire fails at once.
type pool struct {
	slots      int
	queueLimit int

	mu      sync.Mutex
	held    int // slots held (under mu)
	waiters []*waiter

	active  atomic.Int64 // mirror of held, read without the lock by the pacer
	waiting atomic.Int64 // mirror of len(waiters)
}

type waiter struct {
	ready   chan struct{} // closed when the slot is handed over
	granted bool          // under pool.mu
}

func newPool(slots, queueLimit int) *pool {
	return &pool{slots: slots, queueLimit: queueLimit}
}

// enqueue takes a free slot at once (returning a nil waiter), or joins the
// FIFO queue (returning the waiter to pass to wait), or returns errQueueFull.
func (p *pool) enqueue() (*waiter, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.slots == 0 || (p.held < p.slots && len(p.waiters) == 0) {
		p.held++
		p.active.Store(int64(p.held))
		return nil, nil
	}
	if p.queueLimit > 0 && len(p.waiters) >= p.queueLimit {
		return nil, errQueueFull
	}
	w := &waiter{ready: make(chan struct{})}
	p.waiters = append(p.waiters, w)
	p.waiting.Store(int64(len(p.waiters)))
	return w, nil
}

// wait blocks until w is handed a slot (nil if it had one already), or returns
// ctx's error if ctx ends first; then no slot is held.
func (p *pool) wait(ctx context.Context, w *waiter) error {
	if w == nil {
		return nil
	}
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	if w.granted { // handed over while we were giving up: pass it on
		p.mu.Unlock()
		p.release()
		return ctx.Err()
	}
	for i, x := range p.waiters {
		if x == w {
			p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
			break
		}
	}
	p.waiting.Store(int64(len(p.waiters)))
	p.mu.Unlock()
	return ctx.Err()
}

// acquire is enqueue then wait.
func (p *pool) acquire(ctx context.Context) error {
	w, err := p.enqueue()
	if err != nil {
		return err
	}
	return p.wait(ctx, w)
}

// release gives a held slot to the first waiter, or frees it.
func (p *pool) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.waiters) > 0 {
		w := p.waiters[0]
		p.waiters[0] = nil
		p.waiters = p.waiters[1:]
		p.waiting.Store(int64(len(p.waiters)))
		w.granted = true
		close(w.ready)
		return
	}
	p.held--
	p.active.Store(int64(p.held))
}
