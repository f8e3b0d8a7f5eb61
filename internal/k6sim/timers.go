package k6sim

import (
	"time"

	"github.com/grafana/sobek"
)

// timer is one pending setTimeout.
type timer struct {
	cancel chan struct{}
	done   bool
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
		t := &timer{cancel: make(chan struct{})}
		if v.timers == nil {
			v.timers = map[int64]*timer{}
		}
		v.timers[id] = t
		d := time.Duration(ms * float64(time.Millisecond))
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
				delete(v.timers, id)
				if !fire || t.done {
					return nil
				}
				t.done = true
				_, err := fn(sobek.Undefined(), args...)
				return err
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
