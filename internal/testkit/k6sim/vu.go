package k6sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/grafana/sobek"
)

// vu is one virtual user: its own runtime, module instances, tags and event loop.
// Everything but the queue is touched only by the goroutine running the VU.
type vu struct {
	r  *run
	id int // idInTest; 0 for setup and teardown
	rt *sobek.Runtime

	inInit bool
	tags   map[string]string // VU tags (options.tags, scenario, group, script-set)
	meta   map[string]string // exec.vu.metrics.metadata
	group  string
	sc     *scenarioPlan

	iterInInstance int
	iterInScenario int

	natives map[string]*nativeModule
	mods    map[string]sobek.ModuleRecord
	paths   map[sobek.ModuleRecord]string
	exports *sobek.Object

	// The event loop: goroutines started by async calls send one callback each;
	// pending counts those not yet run.
	queue      chan func() error
	pending    int
	rejections []*sobek.Promise
	timers     map[int64]*timer // pending setTimeout calls by id
	timerSeq   int64
	freeze     sobek.Callable // deep-freezes SharedArray elements
}

// abortSignal is the interrupt value of test.abort().
type abortSignal struct{ reason string }

func (r *run) newVU(id int) (*vu, error) {
	v := &vu{
		r:      r,
		id:     id,
		rt:     sobek.New(),
		tags:   map[string]string{},
		meta:   map[string]string{},
		mods:   map[string]sobek.ModuleRecord{},
		paths:  map[sobek.ModuleRecord]string{},
		queue:  make(chan func() error),
		inInit: true,
	}
	v.resetTags(nil)
	v.rt.SetPromiseRejectionTracker(func(p *sobek.Promise, op sobek.PromiseRejectionOperation) {
		switch op {
		case sobek.PromiseRejectionReject:
			v.rejections = append(v.rejections, p)
		case sobek.PromiseRejectionHandle:
			for i, q := range v.rejections {
				if q == p {
					v.rejections = append(v.rejections[:i], v.rejections[i+1:]...)
					break
				}
			}
		}
	})
	v.natives = map[string]*nativeModule{
		"k6":           v.k6Module(),
		"k6/http":      v.httpModule(),
		"k6/metrics":   v.metricsModule(),
		"k6/execution": v.executionModule(),
		"k6/data":      v.dataModule(),
	}
	v.setImportMeta()
	if err := v.setGlobals(r.cfg.Env); err != nil {
		return nil, err
	}
	if err := v.load(); err != nil {
		return nil, err
	}
	v.inInit = false
	v.rejections = nil
	return v, nil
}

func (v *vu) setGlobals(env map[string]string) error {
	rt := v.rt
	if err := v.setEnv(env); err != nil {
		return err
	}
	for k, val := range map[string]any{"__VU": v.id, "__ITER": 0} {
		if err := rt.Set(k, val); err != nil {
			return err
		}
	}
	console := rt.NewObject()
	for _, level := range []string{"log", "info", "warn", "error", "debug"} {
		lvl := level
		if lvl == "log" {
			lvl = "info"
		}
		if err := console.Set(level, func(call sobek.FunctionCall) sobek.Value {
			parts := make([]string, len(call.Arguments))
			for i, a := range call.Arguments {
				parts[i] = v.format(a)
			}
			v.r.log(fmt.Sprintf("%-5s [VU %d] %s", strings.ToUpper(lvl), v.id, strings.Join(parts, " ")))
			return sobek.Undefined()
		}); err != nil {
			return err
		}
	}
	if err := rt.Set("console", console); err != nil {
		return err
	}
	if err := v.setTimers(); err != nil {
		return err
	}
	return rt.Set("open", func(call sobek.FunctionCall) sobek.Value {
		if !v.inInit {
			panic(rt.NewGoError(errors.New("open() can only be called in the init context")))
		}
		name := call.Argument(0).String()
		p, err := v.openPath(name)
		if err != nil {
			panic(rt.NewGoError(fmt.Errorf("open(%q): %w", name, err)))
		}
		b, err := os.ReadFile(p)
		if err != nil {
			panic(rt.NewGoError(fmt.Errorf("open(%q): %w", name, err)))
		}
		if call.Argument(1).String() == "b" {
			return rt.ToValue(rt.NewArrayBuffer(b))
		}
		return rt.ToValue(string(b))
	})
}

func (v *vu) setEnv(env map[string]string) error {
	o := v.rt.NewObject()
	for k, val := range env {
		if err := o.Set(k, val); err != nil {
			return err
		}
	}
	return v.rt.Set("__ENV", o)
}

// format renders a console argument: strings as they are, objects as JSON.
func (v *vu) format(a sobek.Value) string {
	if a == nil || sobek.IsUndefined(a) {
		return "undefined"
	}
	if o, ok := a.(*sobek.Object); ok {
		if _, isFn := sobek.AssertFunction(o); !isFn && o.ClassName() != "Error" {
			if b, err := json.Marshal(o); err == nil {
				return string(b)
			}
		}
	}
	return a.String()
}

// resetTags sets the VU tags for a scenario (nil: outside any scenario).
func (v *vu) resetTags(sc *scenarioPlan) {
	v.tags = map[string]string{}
	maps.Copy(v.tags, v.r.options.Tags)
	if sc != nil {
		maps.Copy(v.tags, sc.tags)
		v.tags["scenario"] = sc.name
	}
	v.group = ""
	v.tags["group"] = ""
}

// enterScenario prepares the VU for sc's iterations.
func (v *vu) enterScenario(sc scenarioPlan) {
	v.sc = &sc
	v.iterInScenario = 0
	v.resetTags(v.sc)
	env := maps.Clone(v.r.cfg.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, sc.env)
	_ = v.setEnv(env)
}

// exported returns a function the main module exports, or nil.
func (v *vu) exported(name string) sobek.Callable {
	if v.exports == nil {
		return nil
	}
	val := v.exports.Get(name)
	if val == nil {
		return nil
	}
	fn, ok := sobek.AssertFunction(val)
	if !ok {
		return nil
	}
	return fn
}

// guard runs f and turns Go panics and JS exceptions into errors.
func (v *vu) guard(f func() error) (err error) {
	defer func() {
		if x := recover(); x != nil {
			switch e := x.(type) {
			case *sobek.Object:
				err = errors.New(describe(e))
			case error:
				err = fmt.Errorf("panic: %w", e)
			default:
				err = fmt.Errorf("panic: %v", x)
			}
		}
	}()
	return f()
}

// call calls fn, then runs the event loop until it is empty. When fn returns a
// promise, its rejection is the error.
func (v *vu) call(fn sobek.Callable, args ...sobek.Value) (sobek.Value, error) {
	v.rejections = nil
	var ret sobek.Value
	err := v.guard(func() error {
		var e error
		ret, e = fn(sobek.Undefined(), args...)
		return e
	})
	if lerr := v.drain(); err == nil {
		err = lerr
	}
	if err != nil {
		return nil, v.jsError(err)
	}
	if p, ok := ret.Export().(*sobek.Promise); ok {
		switch p.State() {
		case sobek.PromiseStateRejected:
			v.dropRejection(p)
			return nil, errors.New(describe(p.Result()))
		case sobek.PromiseStatePending:
			return nil, errors.New("the function returned a promise that never settled (nothing left on the event loop)")
		}
		ret = p.Result()
	}
	if len(v.rejections) > 0 {
		p := v.rejections[0]
		v.rejections = nil
		//lint:ignore ST1005 the text is k6's own message for an unhandled rejection
		return nil, fmt.Errorf("Uncaught (in promise) %s", describe(p.Result()))
	}
	return ret, nil
}

func (v *vu) dropRejection(p *sobek.Promise) {
	for i, q := range v.rejections {
		if q == p {
			v.rejections = append(v.rejections[:i], v.rejections[i+1:]...)
			return
		}
	}
}

// jsError unwraps sobek errors; test.abort()'s interrupt becomes errAborted.
func (v *vu) jsError(err error) error {
	var ie *sobek.InterruptedError
	if errors.As(err, &ie) {
		if a, ok := ie.Value().(*abortSignal); ok {
			return &abortedError{reason: a.reason}
		}
	}
	return err
}

type abortedError struct{ reason string }

func (e *abortedError) Error() string { return "test aborted: " + e.reason }

// drain runs the event loop until no async work is pending. Every started
// goroutine is waited for, even after an error.
func (v *vu) drain() error {
	var first error
	for v.pending > 0 {
		fn := <-v.queue
		v.pending--
		if err := v.guard(fn); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// goAsync runs work on its own goroutine; the callback it returns runs on the
// VU's goroutine from the event loop.
func (v *vu) goAsync(work func() func() error) {
	v.pending++
	go func() {
		cb := work()
		v.queue <- cb
	}()
}

// iteration runs one iteration of the scenario's exec function.
func (v *vu) iteration(sc scenarioPlan, setupData json.RawMessage) error {
	defer func() {
		v.iterInInstance++
		v.iterInScenario++
	}()
	_ = v.rt.Set("__ITER", v.iterInInstance)
	v.group = ""
	v.tags["group"] = ""
	fn := v.exported(sc.exec)
	if fn == nil {
		return fmt.Errorf("the script exports no function %q", sc.exec)
	}
	arg, err := v.parseJSON(setupData)
	if err != nil {
		return err
	}
	_, err = v.call(fn, arg)
	var ab *abortedError
	if errors.As(err, &ab) {
		return nil
	}
	return err
}

// callLifecycle runs setup or teardown on a VU of its own and returns the
// function's result as JSON.
func (v *vu) callLifecycle(name string, data json.RawMessage) (json.RawMessage, error) {
	v.resetTags(nil)
	v.group = "::" + name
	v.tags["group"] = v.group
	fn := v.exported(name)
	arg, err := v.parseJSON(data)
	if err != nil {
		return nil, err
	}
	ret, err := v.call(fn, arg)
	if err != nil {
		var ab *abortedError
		if errors.As(err, &ab) {
			return nil, nil
		}
		return nil, err
	}
	if ret == nil || sobek.IsUndefined(ret) {
		return nil, nil
	}
	b, err := v.stringify(ret)
	if err != nil {
		return nil, fmt.Errorf("%s() returned a value that is not JSON: %w", name, err)
	}
	return b, nil
}

func (v *vu) parseJSON(data json.RawMessage) (sobek.Value, error) {
	if len(data) == 0 {
		return sobek.Undefined(), nil
	}
	parse, _ := sobek.AssertFunction(v.rt.Get("JSON").ToObject(v.rt).Get("parse"))
	return parse(sobek.Undefined(), v.rt.ToValue(string(data)))
}

func (v *vu) stringify(val sobek.Value) (json.RawMessage, error) {
	s, _ := sobek.AssertFunction(v.rt.Get("JSON").ToObject(v.rt).Get("stringify"))
	out, err := s(sobek.Undefined(), val)
	if err != nil {
		return nil, err
	}
	if out == nil || sobek.IsUndefined(out) {
		return nil, nil
	}
	return json.RawMessage(out.String()), nil
}

// readOptions reads the exported options after the first init context.
func (r *run) readOptions(v *vu) error {
	var raw json.RawMessage
	if o := v.exports.Get("options"); o != nil && !sobek.IsUndefined(o) && !sobek.IsNull(o) {
		b, err := v.stringify(o)
		if err != nil {
			return fmt.Errorf("k6sim: options are not JSON: %w", err)
		}
		raw = b
	}
	opts, err := parseOptions(raw)
	if err != nil {
		return err
	}
	if err := checkThresholds(opts.Thresholds, r.metrics); err != nil {
		return err
	}
	r.options = opts
	r.optJSON = raw
	v.resetTags(nil)
	return nil
}

// sampleTags merges the VU tags with a call's tags (the call's win).
func (v *vu) sampleTags(extra map[string]string) map[string]string {
	t := make(map[string]string, len(v.tags)+len(extra))
	maps.Copy(t, v.tags)
	maps.Copy(t, extra)
	return t
}

func (v *vu) metadata() map[string]string {
	if len(v.meta) == 0 {
		return nil
	}
	return maps.Clone(v.meta)
}
