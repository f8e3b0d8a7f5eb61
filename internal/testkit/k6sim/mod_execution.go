package k6sim

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/grafana/sobek"
)

// executionModule provides k6/execution: vu, scenario, instance, test.
func (v *vu) executionModule() *nativeModule {
	rt := v.rt
	def := rt.NewObject()
	getters := map[string]func() sobek.Value{
		"vu":       v.execVU,
		"scenario": v.execScenario,
		"instance": v.execInstance,
		"test":     v.execTest,
	}
	b := map[string]func() sobek.Value{"default": func() sobek.Value { return def }}
	for name, g := range getters {
		_ = def.DefineAccessorProperty(name, rt.ToValue(func(sobek.FunctionCall) sobek.Value { return g() }), nil, sobek.FLAG_FALSE, sobek.FLAG_TRUE)
		b[name] = g
	}
	return &nativeModule{name: "k6/execution", bindings: b}
}

func (v *vu) execVU() sobek.Value {
	rt := v.rt
	if v.inInit {
		panic(rt.NewGoError(errors.New("getting VU information in the init context is not supported")))
	}
	o := rt.NewObject()
	_ = o.Set("idInTest", v.id)
	_ = o.Set("idInInstance", v.id)
	_ = o.Set("iterationInInstance", v.iterInInstance)
	_ = o.Set("iterationInScenario", v.iterInScenario)
	tags := rt.NewDynamicObject(&stringMapObject{rt: rt, m: func() map[string]string { return v.tags }, what: "tag", protect: map[string]bool{"scenario": true}})
	meta := rt.NewDynamicObject(&stringMapObject{rt: rt, m: func() map[string]string { return v.meta }, what: "metadata"})
	m := rt.NewObject()
	_ = m.Set("tags", tags)
	_ = m.Set("metadata", meta)
	_ = o.Set("metrics", m)
	_ = o.Set("tags", tags)
	return o
}

func (v *vu) execScenario() sobek.Value {
	rt := v.rt
	if v.inInit || v.sc == nil {
		panic(rt.NewGoError(errors.New("getting scenario information outside of a scenario (init context, setup, teardown) is not supported")))
	}
	o := rt.NewObject()
	_ = o.Set("name", v.sc.name)
	_ = o.Set("executor", v.sc.exe)
	_ = o.Set("startTime", v.r.start.Add(v.sc.start).UnixMilli())
	_ = o.Set("progress", 0)
	_ = o.Set("iterationInInstance", v.iterInScenario)
	_ = o.Set("iterationInTest", v.iterInScenario)
	return o
}

func (v *vu) execInstance() sobek.Value {
	rt := v.rt
	if v.inInit {
		panic(rt.NewGoError(errors.New("getting instance information in the init context is not supported")))
	}
	v.r.mu.Lock()
	done := v.r.iterations
	failed := len(v.r.errs)
	v.r.mu.Unlock()
	o := rt.NewObject()
	_ = o.Set("iterationsCompleted", done)
	_ = o.Set("iterationsInterrupted", failed)
	_ = o.Set("currentTestRunDuration", float64(time.Since(v.r.start))/float64(time.Millisecond))
	return o
}

func (v *vu) execTest() sobek.Value {
	rt := v.rt
	o := rt.NewObject()
	_ = o.Set("abort", func(call sobek.FunctionCall) sobek.Value {
		msg := "test aborted"
		if a := call.Argument(0); !sobek.IsUndefined(a) {
			msg = a.String()
		}
		v.r.abort(msg, ExitScriptAborted)
		v.r.log(fmt.Sprintf("ERRO  [VU %d] test aborted: %s", v.id, msg))
		rt.Interrupt(&abortSignal{reason: msg})
		return sobek.Undefined()
	})
	if len(v.r.optJSON) > 0 {
		if opts, err := v.parseJSON(v.r.optJSON); err == nil {
			_ = o.Set("options", opts)
		}
	}
	return o
}

// stringMapObject exposes a Go map of strings (VU tags, metadata) to JS as a
// live object; values must be strings, numbers or booleans.
type stringMapObject struct {
	rt      *sobek.Runtime
	m       func() map[string]string
	what    string
	protect map[string]bool
}

func (s *stringMapObject) Get(key string) sobek.Value {
	if v, ok := s.m()[key]; ok {
		return s.rt.ToValue(v)
	}
	return nil
}

func (s *stringMapObject) Set(key string, val sobek.Value) bool {
	if s.protect[key] {
		panic(s.rt.NewGoError(fmt.Errorf("the %s %q is set by k6 and cannot be changed", s.what, key)))
	}
	str, err := tagValue(val)
	if err != nil {
		panic(s.rt.NewGoError(fmt.Errorf("invalid value for %s %q: %w", s.what, key, err)))
	}
	s.m()[key] = str
	return true
}

func (s *stringMapObject) Has(key string) bool {
	_, ok := s.m()[key]
	return ok
}

func (s *stringMapObject) Delete(key string) bool {
	if s.protect[key] {
		return false
	}
	delete(s.m(), key)
	return true
}

func (s *stringMapObject) Keys() []string {
	m := s.m()
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
