package k6sim

import (
	"fmt"
	"sort"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
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

// parseThreshold parses a threshold's key and expression with analyze's
// parser of k6's threshold syntax (package check), the one parser of the
// project.
func parseThreshold(key, expr string) (name string, tags []k6json.Tag, e thresholds.Expr, err error) {
	if name, tags, err = parseThresholdKey(key); err != nil {
		return "", nil, thresholds.Expr{}, err
	}
	if e, err = parseThresholdExpr(expr); err != nil {
		return "", nil, thresholds.Expr{}, fmt.Errorf("threshold on %q: %w", key, err)
	}
	return name, tags, e, nil
}

// parseThresholdKey parses "name" or "name{tag:value,...}" (check.ParseMetric).
func parseThresholdKey(key string) (string, []k6json.Tag, error) {
	name, tags, err := thresholds.ParseMetric(key)
	if err != nil {
		return "", nil, fmt.Errorf("threshold key %q: %w", key, err)
	}
	return name, tags, nil
}

// parseThresholdExpr parses "AGGREGATE OPERATOR NUMBER" (check.ParseExpr).
func parseThresholdExpr(s string) (thresholds.Expr, error) { return thresholds.ParseExpr(s) }

// k6jsonType is a metric type as analyze names it.
var k6jsonType = map[MetricType]k6json.Type{Counter: k6json.Counter, Gauge: k6json.Gauge, Rate: k6json.Rate, Trend: k6json.Trend}

// checkThresholds verifies that every threshold names a declared metric and an
// aggregation its type has (k6 refuses to start otherwise).
func checkThresholds(th map[string]ThresholdList, reg *registry) error {
	keys := make([]string, 0, len(th))
	for k := range th {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		for _, t := range th[key] {
			name, _, e, err := parseThreshold(key, t.Expr)
			if err != nil {
				return fmt.Errorf("k6sim: %w", err)
			}
			mi, ok := reg.lookup(name)
			if !ok {
				return fmt.Errorf("k6sim: threshold on %q: no metric %q is declared in the init context", key, name)
			}
			if typ := k6jsonType[mi.Type]; !e.Aggregate.Supports(typ) {
				return fmt.Errorf("k6sim: threshold %q on %q: a %s metric has no %q aggregation (it has %s)", t.Expr, key, mi.Type, e.Aggregate, thresholds.Supported(typ))
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

// evaluateThresholds computes every threshold over the samples, with
// analyze's evaluation of an aggregate (check.Check.Evaluate: k6's
// definitions, p(N) by stats.Percentile). As k6 does, and unlike analyze's
// checks, which fail without data: an empty Trend or Gauge aggregates to 0,
// an empty Counter counts 0, and a Rate without samples passes.
func evaluateThresholds(th map[string]ThresholdList, reg *registry, samples []Sample, elapsed time.Duration) []ThresholdResult {
	keys := make([]string, 0, len(th))
	for k := range th {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []ThresholdResult
	for _, key := range keys {
		for _, t := range th[key] {
			name, tags, e, err := parseThreshold(key, t.Expr)
			if err != nil {
				continue // refused when the options were read
			}
			mi, _ := reg.lookup(name)
			d := data(k6jsonType[mi.Type], name, tags, samples, elapsed)
			v := 0.0
			if r := (thresholds.Check{Metric: name, Tags: tags, Expr: e}).Evaluate(d); r.Defined {
				v = r.Observed
			}
			passed := e.Holds(v)
			if mi.Type == Rate && d.Count == 0 {
				passed = true
			}
			out = append(out, ThresholdResult{Metric: key, Expr: t.Expr, Value: v, Samples: int(d.Count), Passed: passed, AbortOnFail: t.AbortOnFail})
		}
	}
	return out
}

// data gathers the samples of a metric or submetric (a sample belongs to it
// when it has every tag pair) as analyze's checks take them.
func data(typ k6json.Type, name string, tags []k6json.Tag, samples []Sample, elapsed time.Duration) thresholds.Data {
	d := thresholds.Data{Type: typ, Seconds: elapsed.Seconds()}
	for _, s := range samples {
		if s.Metric != name || !hasTags(s.Tags, tags) {
			continue
		}
		d.Count++
		d.Sum += s.Value
		d.Last = s.Value
		if s.Value != 0 {
			d.NonZero++
		}
		if typ == k6json.Trend {
			d.Sorted = append(d.Sorted, s.Value)
		}
	}
	sort.Float64s(d.Sorted)
	return d
}

func hasTags(have map[string]string, want []k6json.Tag) bool {
	for _, t := range want {
		if hv, ok := have[t.Key]; !ok || hv != t.Value {
			return false
		}
	}
	return true
}
