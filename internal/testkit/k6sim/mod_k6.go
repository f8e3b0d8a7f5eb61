package k6sim

import (
	"errors"
	"strings"
	"time"

	"github.com/grafana/sobek"
)

// k6Module provides check, group, sleep and fail.
func (v *vu) k6Module() *nativeModule {
	rt := v.rt
	check := rt.ToValue(v.check)
	group := rt.ToValue(v.groupFn)
	sleep := rt.ToValue(func(call sobek.FunctionCall) sobek.Value {
		secs := call.Argument(0).ToFloat()
		if secs > 0 {
			v.r.cfg.Sleep(time.Duration(secs * float64(time.Second)))
		}
		return sobek.Undefined()
	})
	fail := rt.ToValue(func(call sobek.FunctionCall) sobek.Value {
		msg := "fail"
		if a := call.Argument(0); !sobek.IsUndefined(a) {
			msg = a.String()
		}
		panic(rt.NewGoError(errors.New(msg)))
	})
	def := rt.NewObject()
	_ = def.Set("check", check)
	_ = def.Set("group", group)
	_ = def.Set("sleep", sleep)
	_ = def.Set("fail", fail)
	return &nativeModule{name: "k6", bindings: map[string]func() sobek.Value{
		"check":   func() sobek.Value { return check },
		"group":   func() sobek.Value { return group },
		"sleep":   func() sobek.Value { return sleep },
		"fail":    func() sobek.Value { return fail },
		"default": func() sobek.Value { return def },
	}}
}

// check evaluates each named condition on val, adds one `checks` sample per
// condition (tag check=name) and returns whether all passed.
func (v *vu) check(call sobek.FunctionCall) sobek.Value {
	rt := v.rt
	if v.inInit {
		panic(rt.NewGoError(errors.New("check() can not be used in the init context")))
	}
	val := call.Argument(0)
	sets := call.Argument(1)
	if sobek.IsUndefined(sets) || sobek.IsNull(sets) {
		panic(rt.NewTypeError("check(value, sets): sets must be an object of conditions"))
	}
	extra := v.callTags(call.Argument(2), "checks")
	mi, _ := v.r.metrics.declare("checks", Rate, false)
	obj := sets.ToObject(rt)
	all := true
	for _, name := range obj.Keys() {
		cond := obj.Get(name)
		ok := false
		if fn, isFn := sobek.AssertFunction(cond); isFn {
			res, err := fn(sobek.Undefined(), val)
			if err != nil {
				panic(err)
			}
			ok = res.ToBoolean()
		} else {
			ok = cond.ToBoolean()
		}
		tags := v.sampleTags(extra)
		tags["check"] = name
		value := 0.0
		if ok {
			value = 1
		} else {
			all = false
		}
		v.emit(mi, value, tags)
	}
	return rt.ToValue(all)
}

// groupFn runs fn with the group tag set to the nested group path.
func (v *vu) groupFn(call sobek.FunctionCall) sobek.Value {
	rt := v.rt
	name := call.Argument(0).String()
	if strings.Contains(name, "::") {
		panic(rt.NewGoError(errors.New("group and check names may not contain '::'")))
	}
	fn, ok := sobek.AssertFunction(call.Argument(1))
	if !ok {
		panic(rt.NewTypeError("group(name, fn): fn must be a function"))
	}
	prev := v.group
	v.group = prev + "::" + name
	v.tags["group"] = v.group
	defer func() {
		v.group = prev
		v.tags["group"] = prev
	}()
	res, err := fn(sobek.Undefined())
	if err != nil {
		panic(err)
	}
	return res
}

// emit adds one sample with the VU's metadata.
func (v *vu) emit(mi MetricInfo, value float64, tags map[string]string) {
	v.r.out.add(Sample{
		Metric: mi.Name, Type: mi.Type, IsTime: mi.IsTime, Value: value,
		Tags: tags, Metadata: v.metadata(), Time: time.Now(), VU: v.id,
	})
}
