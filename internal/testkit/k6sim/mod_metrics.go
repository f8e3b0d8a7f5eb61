package k6sim

import (
	"errors"
	"fmt"
	"math"

	"github.com/grafana/sobek"
)

// metricsModule provides Trend, Counter, Rate and Gauge.
func (v *vu) metricsModule() *nativeModule {
	rt := v.rt
	ctors := map[string]sobek.Value{
		"Counter": rt.ToValue(v.metricCtor(Counter)),
		"Gauge":   rt.ToValue(v.metricCtor(Gauge)),
		"Rate":    rt.ToValue(v.metricCtor(Rate)),
		"Trend":   rt.ToValue(v.metricCtor(Trend)),
	}
	def := rt.NewObject()
	b := map[string]func() sobek.Value{"default": func() sobek.Value { return def }}
	for name, c := range ctors {
		_ = def.Set(name, c)
		b[name] = func() sobek.Value { return c }
	}
	return &nativeModule{name: "k6/metrics", bindings: b}
}

// metricCtor is the constructor of one metric type: new Trend(name, isTime).
// As in k6, metrics can be declared only in the init context.
func (v *vu) metricCtor(typ MetricType) func(call sobek.ConstructorCall) *sobek.Object {
	return func(call sobek.ConstructorCall) *sobek.Object {
		rt := v.rt
		if !v.inInit {
			panic(rt.NewGoError(errors.New("metrics must be declared in the init context")))
		}
		name := call.Argument(0).String()
		isTime := typ == Trend && call.Argument(1).ToBoolean()
		mi, err := v.r.metrics.declare(name, typ, isTime)
		if err != nil {
			panic(rt.NewGoError(err))
		}
		this := call.This
		_ = this.Set("name", name)
		_ = this.Set("type", string(typ))
		_ = this.Set("add", func(c sobek.FunctionCall) sobek.Value {
			return rt.ToValue(v.addSample(mi, c.Argument(0), c.Argument(1)))
		})
		return nil
	}
}

// addSample implements Metric.add(value, tags). Like k6, a value that is not a
// number or boolean is dropped with a warning, and a tag value that is not a
// string, number or boolean throws.
func (v *vu) addSample(mi MetricInfo, value, tags sobek.Value) bool {
	if v.inInit {
		panic(v.rt.NewGoError(fmt.Errorf("cannot add samples to %q in the init context", mi.Name)))
	}
	var f float64
	switch x := value.Export().(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	case bool:
		if x {
			f = 1
		}
	default:
		v.r.log(fmt.Sprintf("WARN  [VU %d] %s is an invalid value for metric %q, a number or a boolean value is expected", v.id, value.String(), mi.Name))
		return false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		v.r.log(fmt.Sprintf("WARN  [VU %d] %v is an invalid value for metric %q, a number or a boolean value is expected", v.id, f, mi.Name))
		return false
	}
	if mi.Type == Rate && f != 0 {
		f = 1
	}
	v.emit(mi, f, v.sampleTags(v.callTags(tags, mi.Name)))
	return true
}

// callTags reads a tags object given to a call; nil for undefined or null.
func (v *vu) callTags(val sobek.Value, metric string) map[string]string {
	if val == nil || sobek.IsUndefined(val) || sobek.IsNull(val) {
		return nil
	}
	obj, ok := val.(*sobek.Object)
	if !ok {
		panic(v.rt.NewTypeError(fmt.Sprintf("tags for %q must be an object", metric)))
	}
	out := map[string]string{}
	for _, k := range obj.Keys() {
		s, err := tagValue(obj.Get(k))
		if err != nil {
			panic(v.rt.NewGoError(fmt.Errorf("cannot add tags for %q: invalid value for tag %q: %w", metric, k, err)))
		}
		out[k] = s
	}
	return out
}

// tagValue turns a JS tag value into its string; only strings, numbers and
// booleans are accepted.
func tagValue(x sobek.Value) (string, error) {
	if x == nil {
		return "", errors.New("undefined")
	}
	switch x.Export().(type) {
	case string, int64, float64, bool:
		return x.String(), nil
	}
	return "", fmt.Errorf("only strings, numbers and booleans are accepted, got %s", x.String())
}
