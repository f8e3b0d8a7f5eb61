// Package check parses checks written in k6's threshold syntax and evaluates
// them on samples read from k6's JSON output.
//
// A check names a metric, optionally a submetric by tags, and an expression:
//
//	llm_ttft: p(99)<2000
//	llm_ttft{model:gpt-4o}: p(95)<800
//	llm_requests_failed: rate<0.01
//
// The expression follows k6's threshold grammar: an aggregate (avg, min, max,
// med, p(N) for a Trend; rate for a Rate; count and rate for a Counter; value for
// a Gauge), an operator (<, <=, >, >=, ==, ===, !=) and a number. A submetric's
// tags follow k6's rules: key:value pairs separated by commas, keys and values
// trimmed of spaces and quotes, and a sample belongs to it when it has every
// pair (the key present, with that value).
package thresholds

import (
	"errors"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"math"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Kind is the aggregate a check compares.
type Kind uint8

// The aggregates of k6's threshold expressions.
const (
	Avg Kind = iota + 1
	Min
	Max
	Med
	Percentile // p(N)
	Count
	RateOf // "rate": a Rate's share of non-zero values, a Counter's sum per second
	Value  // a Gauge's last value
)

var kindNames = map[Kind]string{Avg: "avg", Min: "min", Max: "max", Med: "med", Count: "count", RateOf: "rate", Value: "value"}

// Aggregate is a Kind with its percentile (for Percentile, in percent).
type Aggregate struct {
	Kind Kind
	P    float64
}

// String is k6's spelling: "avg", "p(99.9)".
func (a Aggregate) String() string {
	if a.Kind == Percentile {
		return stats.Name(a.P)
	}
	return kindNames[a.Kind]
}

// Supports reports whether k6 allows the aggregate on a metric type.
func (a Aggregate) Supports(t k6json.Type) bool {
	switch t {
	case k6json.Trend:
		return a.Kind == Avg || a.Kind == Min || a.Kind == Max || a.Kind == Med || a.Kind == Percentile
	case k6json.Rate:
		return a.Kind == RateOf
	case k6json.Counter:
		return a.Kind == Count || a.Kind == RateOf
	case k6json.Gauge:
		return a.Kind == Value
	}
	return false
}

// Supported lists the aggregates k6 allows on a metric type.
func Supported(t k6json.Type) string {
	switch t {
	case k6json.Trend:
		return "avg, min, max, med, p(N)"
	case k6json.Rate:
		return "rate"
	case k6json.Counter:
		return "count, rate"
	case k6json.Gauge:
		return "value"
	}
	return "none"
}

// Expr is a k6 threshold expression: Aggregate Op Limit.
type Expr struct {
	Source    string // as written, trimmed
	Aggregate Aggregate
	Op        string // <, <=, >, >=, ==, ===, !=
	Limit     float64
}

// String is the expression without spaces: "p(95)<800".
func (e Expr) String() string {
	return e.Aggregate.String() + e.Op + strconv.FormatFloat(e.Limit, 'g', -1, 64)
}

// Holds reports whether a value of the aggregate meets the limit.
func (e Expr) Holds(v float64) bool { return e.holds(v) }

// holds applies the operator (metrics.Compare, the one comparison).
func (e Expr) holds(v float64) bool { return metrics.Compare(v, e.Op, e.Limit) }

// operators in the order they are looked for (longest first where one is a
// prefix of another), as k6 does.
var operators = []string{"<=", "<", ">=", ">", "===", "==", "!="}

// ParseExpr parses a k6 threshold expression such as "p(99)<2000".
func ParseExpr(s string) (Expr, error) {
	src := strings.TrimSpace(s)
	for _, op := range operators {
		left, right, found := strings.Cut(src, op)
		if !found || strings.TrimSpace(right) == "" {
			continue
		}
		agg, err := parseAggregate(strings.TrimSpace(left))
		if err != nil {
			return Expr{}, fmt.Errorf("expression %q: %w", src, err)
		}
		limit, err := strconv.ParseFloat(strings.TrimSpace(right), 64)
		if err != nil || math.IsNaN(limit) {
			return Expr{}, fmt.Errorf("expression %q: the limit %q is not a number", src, strings.TrimSpace(right))
		}
		return Expr{Source: src, Aggregate: agg, Op: op, Limit: limit}, nil
	}
	return Expr{}, fmt.Errorf("expression %q: want AGGREGATE OPERATOR NUMBER, e.g. p(99)<2000 (operators: < <= > >= == === !=)", src)
}

func parseAggregate(s string) (Aggregate, error) {
	for k, n := range kindNames {
		if s == n {
			return Aggregate{Kind: k}, nil
		}
	}
	if strings.HasPrefix(s, "p(") && strings.HasSuffix(s, ")") {
		p, err := strconv.ParseFloat(s[2:len(s)-1], 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
			return Aggregate{}, fmt.Errorf("%q: the percentile must be a number from 0 to 100", s)
		}
		return Aggregate{Kind: Percentile, P: p}, nil
	}
	return Aggregate{}, fmt.Errorf("unknown aggregate %q (want avg, min, max, med, p(N), count, rate or value)", s)
}

// Check is one check on a metric or submetric.
type Check struct {
	Source string       // as written: "llm_ttft{model:gpt-4o}: p(95)<800"
	Metric string       // llm_ttft
	Tags   []k6json.Tag // model=gpt-4o, in key order; nil for the whole metric
	Expr   Expr
}

// Name is the metric or submetric as k6 names it: llm_ttft{model:gpt-4o}.
func (c Check) Name() string {
	if len(c.Tags) == 0 {
		return c.Metric
	}
	parts := make([]string, len(c.Tags))
	for i, t := range c.Tags {
		parts[i] = quoteTag(t.Key) + ":" + quoteTag(t.Value)
	}
	return c.Metric + "{" + strings.Join(parts, ",") + "}"
}

// ParseMetric parses a metric or submetric name: "llm_ttft" or
// "llm_ttft{model:gpt-4o,scenario:ramp}".
func ParseMetric(s string) (string, []k6json.Tag, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '{')
	if open < 0 {
		if strings.ContainsAny(s, "} \t:") || s == "" {
			return "", nil, fmt.Errorf("metric name %q: want a name such as llm_ttft or llm_ttft{model:gpt-4o}", s)
		}
		return s, nil, nil
	}
	if !strings.HasSuffix(s, "}") || strings.Count(s, "{") != 1 || strings.Count(s, "}") != 1 {
		return "", nil, fmt.Errorf("submetric %q: want name{key:value,...} with one pair of braces at the end", s)
	}
	name := strings.TrimSpace(s[:open])
	if name == "" || strings.ContainsAny(name, " \t:") {
		return "", nil, fmt.Errorf("submetric %q: bad metric name %q", s, name)
	}
	var tags []k6json.Tag
	seen := map[string]bool{}
	for _, kv := range strings.Split(s[open+1:len(s)-1], ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(v) == "" {
			return "", nil, fmt.Errorf("submetric %q: tag %q is not key:value", s, strings.TrimSpace(kv))
		}
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if k == "" {
			return "", nil, fmt.Errorf("submetric %q: empty tag name", s)
		}
		if seen[k] {
			return "", nil, fmt.Errorf("submetric %q: tag %q given twice", s, k)
		}
		seen[k] = true
		tags = append(tags, k6json.Tag{Key: k, Value: v})
	}
	if len(tags) == 0 {
		return "", nil, fmt.Errorf("submetric %q: no tags between the braces", s)
	}
	sortTags(tags)
	return name, tags, nil
}

// quoteTag quotes a tag key or value that would not survive k6's trimming:
// an empty one, or one with spaces at an end.
func quoteTag(s string) string {
	if s == "" || strings.TrimSpace(s) != s {
		return `"` + s + `"`
	}
	return s
}

func sortTags(t []k6json.Tag) {
	for i := 1; i < len(t); i++ {
		for j := i; j > 0 && t[j].Key < t[j-1].Key; j-- {
			t[j], t[j-1] = t[j-1], t[j]
		}
	}
}

// Parse parses "METRIC: EXPR[, EXPR...]" into one check per expression.
func Parse(s string) ([]Check, error) {
	src := strings.TrimSpace(s)
	// The metric ends at the first ':' after the closing brace (a submetric's
	// tags hold colons).
	from := 0
	if close := strings.IndexByte(src, '}'); close >= 0 {
		from = close
	}
	colon := strings.IndexByte(src[from:], ':')
	if colon < 0 {
		return nil, fmt.Errorf("check %q: want METRIC: EXPRESSION, e.g. 'llm_ttft: p(99)<2000'", src)
	}
	colon += from
	name, tags, err := ParseMetric(src[:colon])
	if err != nil {
		return nil, fmt.Errorf("check %q: %w", src, err)
	}
	var out []Check
	for _, e := range strings.Split(src[colon+1:], ",") {
		if strings.TrimSpace(e) == "" {
			continue
		}
		expr, err := ParseExpr(e)
		if err != nil {
			return nil, fmt.Errorf("check %q: %w", src, err)
		}
		out = append(out, newCheck(name, tags, expr))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("check %q: no expression after the colon", src)
	}
	return out, nil
}

func newCheck(name string, tags []k6json.Tag, e Expr) Check {
	c := Check{Metric: name, Tags: tags, Expr: e}
	c.Source = c.Name() + ": " + e.Source
	return c
}

// ErrNoChecks is returned when a checks file holds none.
var ErrNoChecks = errors.New("check: no checks")
