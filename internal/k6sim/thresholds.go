package k6sim

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/percentile"
)

// ThresholdResult is the evaluation of one threshold expression.
type ThresholdResult struct {
	// Metric is the threshold's key as written, e.g. "llm_ttft{model:a}".
	Metric string
	Expr   string
	// Value is the aggregate the expression compared (e.g. p(99) in ms).
	Value float64
	// Samples is the number of samples the aggregate was computed from.
	Samples     int
	Passed      bool
	AbortOnFail bool
}

type thresholdExpr struct {
	agg   string  // avg min max med count rate value p
	p     float64 // for p(N), N in 0..100
	op    string
	value float64
}

var thresholdRE = regexp.MustCompile(`^\s*(avg|min|max|med|count|rate|value|p\(\s*(\d+(?:\.\d+)?)\s*\))\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$`)

func parseThresholdExpr(s string) (thresholdExpr, error) {
	m := thresholdRE.FindStringSubmatch(s)
	if m == nil {
		return thresholdExpr{}, fmt.Errorf("threshold %q is not of the form 'aggregation operator number' (e.g. 'p(99)<2000', 'rate<0.01')", s)
	}
	t := thresholdExpr{agg: m[1], op: m[3]}
	if strings.HasPrefix(m[1], "p(") {
		t.agg = "p"
		t.p, _ = strconv.ParseFloat(m[2], 64)
		if t.p > 100 {
			return thresholdExpr{}, fmt.Errorf("threshold %q: percentile above 100", s)
		}
	}
	t.value, _ = strconv.ParseFloat(m[4], 64)
	return t, nil
}

// parseThresholdKey splits "name{tag:value,tag2:value2}" into the metric name
// and the submetric's tags.
func parseThresholdKey(key string) (string, map[string]string, error) {
	i := strings.IndexByte(key, '{')
	if i < 0 {
		return strings.TrimSpace(key), nil, nil
	}
	if !strings.HasSuffix(key, "}") {
		return "", nil, fmt.Errorf("threshold key %q: a submetric selector must end with '}'", key)
	}
	name := strings.TrimSpace(key[:i])
	tags := map[string]string{}
	for _, part := range strings.Split(key[i+1:len(key)-1], ",") {
		k, v, ok := strings.Cut(part, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return "", nil, fmt.Errorf("threshold key %q: %q is not tag:value", key, part)
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		tags[strings.TrimSpace(k)] = v
	}
	return name, tags, nil
}

// aggregationsOf lists the aggregations k6 allows on each metric type.
var aggregationsOf = map[MetricType][]string{
	Counter: {"count", "rate"},
	Gauge:   {"value"},
	Rate:    {"rate"},
	Trend:   {"avg", "min", "max", "med", "p"},
}

// checkThresholds verifies that every threshold names a declared metric and an
// aggregation its type has (k6 refuses to start otherwise).
func checkThresholds(th map[string]ThresholdList, reg *registry) error {
	keys := make([]string, 0, len(th))
	for k := range th {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		name, _, err := parseThresholdKey(key)
		if err != nil {
			return err
		}
		mi, ok := reg.lookup(name)
		if !ok {
			return fmt.Errorf("k6sim: threshold on %q: no metric %q is declared in the init context", key, name)
		}
		for _, t := range th[key] {
			e, _ := parseThresholdExpr(t.Expr)
			allowed := false
			for _, a := range aggregationsOf[mi.Type] {
				allowed = allowed || a == e.agg
			}
			if !allowed {
				return fmt.Errorf("k6sim: threshold %q on %q: a %s metric has no %q aggregation (it has %v)", t.Expr, key, mi.Type, e.agg, aggregationsOf[mi.Type])
			}
		}
	}
	return nil
}

func hasAbortOnFail(th map[string]ThresholdList) bool {
	for _, l := range th {
		for _, t := range l {
			if t.AbortOnFail {
				return true
			}
		}
	}
	return false
}

// evaluateThresholds computes every threshold over the samples. Trend
// percentiles interpolate linearly at rank p·(n−1), as k6 does. As k6 does, an
// empty Trend aggregates to 0, an empty Counter counts 0, and a Rate without
// samples passes.
func evaluateThresholds(th map[string]ThresholdList, reg *registry, samples []Sample, elapsed time.Duration) []ThresholdResult {
	keys := make([]string, 0, len(th))
	for k := range th {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []ThresholdResult
	for _, key := range keys {
		name, tags, err := parseThresholdKey(key)
		if err != nil {
			continue // refused when the options were read
		}
		mi, _ := reg.lookup(name)
		var vals []float64
		for _, s := range samples {
			if s.Metric != name || !hasTags(s.Tags, tags) {
				continue
			}
			vals = append(vals, s.Value)
		}
		for _, t := range th[key] {
			e, err := parseThresholdExpr(t.Expr)
			if err != nil {
				continue
			}
			v := aggregate(e, mi.Type, vals, elapsed)
			passed := compare(v, e.op, e.value)
			if mi.Type == Rate && len(vals) == 0 {
				passed = true
			}
			out = append(out, ThresholdResult{Metric: key, Expr: t.Expr, Value: v, Samples: len(vals), Passed: passed, AbortOnFail: t.AbortOnFail})
		}
	}
	return out
}

func hasTags(have, want map[string]string) bool {
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			return false
		}
	}
	return true
}

func aggregate(e thresholdExpr, typ MetricType, vals []float64, elapsed time.Duration) float64 {
	n := len(vals)
	switch e.agg {
	case "count":
		return sum(vals)
	case "rate":
		if typ == Counter {
			if elapsed <= 0 {
				return 0
			}
			return sum(vals) / elapsed.Seconds()
		}
		if n == 0 {
			return 0
		}
		nz := 0
		for _, v := range vals {
			if v != 0 {
				nz++
			}
		}
		return float64(nz) / float64(n)
	case "value":
		if n == 0 {
			return 0
		}
		return vals[n-1]
	}
	if n == 0 {
		return 0
	}
	s := append([]float64(nil), vals...)
	sort.Float64s(s)
	switch e.agg {
	case "avg":
		return sum(s) / float64(n)
	case "min":
		return s[0]
	case "max":
		return s[n-1]
	case "med":
		return percentile.K6(s, 50)
	default:
		return percentile.K6(s, e.p)
	}
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

func compare(a float64, op string, b float64) bool {
	switch op {
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "==", "===":
		return a == b
	case "!=":
		return a != b
	}
	return false
}
