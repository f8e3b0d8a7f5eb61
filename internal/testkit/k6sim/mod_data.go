package k6sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/grafana/sobek"
)

// sharedArrays holds the arrays of k6/data's SharedArray by name for one run:
// the first VU that creates a name calls its function, every VU reads the
// same JSON elements (as in k6, each read parses a fresh, frozen copy).
type sharedArrays struct {
	mu sync.Mutex
	m  map[string][]string // name → JSON of each element
}

// dataModule provides SharedArray.
func (v *vu) dataModule() *nativeModule {
	ctor := v.rt.ToValue(v.sharedArrayCtor)
	def := v.rt.NewObject()
	_ = def.Set("SharedArray", ctor)
	return &nativeModule{name: "k6/data", bindings: map[string]func() sobek.Value{
		"default":     func() sobek.Value { return def },
		"SharedArray": func() sobek.Value { return ctor },
	}}
}

// sharedArrayCtor is new SharedArray(name, fn): init context only; fn must
// return an array. The result is a read-only array-like object.
func (v *vu) sharedArrayCtor(call sobek.ConstructorCall) *sobek.Object {
	rt := v.rt
	if !v.inInit {
		panic(rt.NewGoError(errors.New("new SharedArray must be called in the init context")))
	}
	name := call.Argument(0).String()
	if sobek.IsUndefined(call.Argument(0)) || name == "" {
		panic(rt.NewTypeError("empty name provided to SharedArray's constructor"))
	}
	fn, ok := sobek.AssertFunction(call.Argument(1))
	if !ok {
		panic(rt.NewTypeError("a function is expected as the second argument of SharedArray's constructor"))
	}
	elems, err := v.r.shared.get(name, func() ([]string, error) { return v.callForArray(fn) })
	if err != nil {
		panic(rt.NewGoError(err))
	}
	return rt.NewDynamicArray(&sharedArray{v: v, elems: elems})
}

func (s *sharedArrays) get(name string, build func() ([]string, error)) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[name]; ok {
		return e, nil
	}
	e, err := build()
	if err != nil {
		return nil, err
	}
	if s.m == nil {
		s.m = map[string][]string{}
	}
	s.m[name] = e
	return e, nil
}

// callForArray calls fn and JSON-encodes each element of the array it returns.
func (v *vu) callForArray(fn sobek.Callable) ([]string, error) {
	ret, err := fn(sobek.Undefined())
	if err != nil {
		return nil, err
	}
	o, ok := ret.(*sobek.Object)
	if !ok || o.ClassName() != "Array" {
		return nil, errors.New("only arrays can be made into SharedArray")
	}
	n := int(o.Get("length").ToInteger())
	out := make([]string, n)
	for i := range n {
		b, err := v.stringify(o.Get(fmt.Sprint(i)))
		if err != nil {
			return nil, fmt.Errorf("SharedArray element %d: %w", i, err)
		}
		out[i] = string(b)
	}
	return out, nil
}

// sharedArray is one VU's view of a shared array.
type sharedArray struct {
	v     *vu
	elems []string
}

func (a *sharedArray) Len() int { return len(a.elems) }

func (a *sharedArray) Get(i int) sobek.Value {
	if i < 0 || i >= len(a.elems) {
		return sobek.Undefined()
	}
	val, err := a.v.parseJSON(json.RawMessage(a.elems[i]))
	if err != nil {
		panic(a.v.rt.NewGoError(err))
	}
	return a.v.deepFreeze(val)
}

func (a *sharedArray) Set(int, sobek.Value) bool {
	panic(a.v.rt.NewTypeError("SharedArray is immutable"))
}

func (a *sharedArray) SetLen(int) bool {
	panic(a.v.rt.NewTypeError("SharedArray is immutable"))
}

// deepFreeze freezes val and everything in it, as k6 freezes SharedArray elements.
func (v *vu) deepFreeze(val sobek.Value) sobek.Value {
	if v.freeze == nil {
		f, err := v.rt.RunString(`(function freeze(o) {
			if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
				Object.freeze(o);
				for (const k of Object.keys(o)) freeze(o[k]);
			}
			return o;
		})`)
		if err != nil {
			panic(err)
		}
		v.freeze, _ = sobek.AssertFunction(f)
	}
	out, err := v.freeze(sobek.Undefined(), val)
	if err != nil {
		panic(err)
	}
	return out
}
