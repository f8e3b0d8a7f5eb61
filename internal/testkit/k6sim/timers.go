package k6sim

import (
	"cmp"
	"slices"
	"time"

	"github.com/grafana/sobek"
)

// timer is one pending setTimeout.
type timer struct {
	cancel chan struct{}
	done   bool
	id     int64
	due    time.Time
	fn     sobek.Callable
	args   []sobek.Value
}

// setTimers installs the global setTimeout and clearTimeout (k6 v1+): the
// callback runs on the VU's event loop after the delay (fractional
// milliseconds honoured), so an iteration lasts until its timers fired.
func (v *vu) setTimers() error {
	rt := v.rt
	if err := rt.Set("setTimeout", func(call sobek.FunctionCall) sobek.Value {
		fn, ok := sobek.AssertFunction(call.Argument(0))
		if !ok {
			panic(rt.NewTypeError("setTimeout: the first argument must be a function"))
		}
		ms := call.Argument(1).ToFloat()
		if !(ms > 0) { // NaN, negative, 0
			ms = 0
		}
		args := append([]sobek.Value(nil), call.Arguments[min(2, len(call.Arguments)):]...)
		v.timerSeq++
		id := v.timerSeq
		d := time.Duration(ms * float64(time.Millisecond))
		t := &timer{cancel: make(chan struct{}), id: id, due: time.Now().Add(d), fn: fn, args: args}
		if v.timers == nil {
			v.timers = map[int64]*timer{}
		}
		v.timers[id] = t
		ctx := v.r.ctx
		v.goAsync(func() func() error {
			tm := time.NewTimer(d)
			defer tm.Stop()
			fire := false
			select {
			case <-tm.C:
				fire = true
			case <-t.cancel:
			case <-ctx.Done():
			}
			return func() error {
				if !fire || t.done {
					delete(v.timers, id)
					return nil
				}
				return v.fireDue(t.due)
			}
		})
		return rt.ToValue(id)
	}); err != nil {
		return err
	}
	return rt.Set("clearTimeout", func(call sobek.FunctionCall) sobek.Value {
		id := call.Argument(0).ToInteger()
		if t, ok := v.timers[id]; ok && !t.done {
			t.done = true
			close(t.cancel)
		}
		return sobek.Undefined()
	})
}

// fireDue runs, in due order (then creation order), every pending timer due
// no later than due: a timer whose goroutine woke late on a busy machine
// still fires after the earlier-due ones, as on k6's event loop. A timer run
// here is done, so its own wake-up later does nothing.
func (v *vu) fireDue(due time.Time) error {
	var ready []*timer
	for _, t := range v.timers {
		if !t.done && !t.due.After(due) {
			ready = append(ready, t)
		}
	}
	slices.SortFunc(ready, func(a, b *timer) int {
		if c := a.due.Compare(b.due); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	for _, t := range ready {
		t.done = true
		delete(v.timers, t.id)
		if _, err := t.fn(sobek.Undefined(), t.args...); err != nil {
			return err
		}
	}
	return nil
}
