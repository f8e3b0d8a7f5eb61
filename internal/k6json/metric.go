package k6json

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Type is a k6 metric type.
type Type uint8

// The k6 metric types. TypeUnknown is a metric whose declaration was not seen.
const (
	TypeUnknown Type = iota
	Counter          // sum of values; k6 also reports it per second of test time
	Gauge            // last value, with min and max
	Rate             // share of non-zero values
	Trend            // distribution: min, max, avg, med, p(N)
)

var typeNames = [...]string{"unknown", "counter", "gauge", "rate", "trend"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// ParseType parses k6's name of a metric type ("trend", "rate", "counter", "gauge").
func ParseType(s string) (Type, error) {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i), nil
		}
	}
	return TypeUnknown, fmt.Errorf("unknown metric type %q (want counter, gauge, rate or trend)", s)
}

// ValueType is what a metric's values are: k6's "contains".
type ValueType uint8

// The k6 value types.
const (
	Default ValueType = iota // plain numbers
	Time                     // milliseconds
	Data                     // bytes
)

var valueTypeNames = [...]string{"default", "time", "data"}

func (v ValueType) String() string {
	if int(v) < len(valueTypeNames) {
		return valueTypeNames[v]
	}
	return fmt.Sprintf("ValueType(%d)", uint8(v))
}

// Unit is the unit k6 uses for values of this type: "ms", "B" or "".
func (v ValueType) Unit() string {
	switch v {
	case Time:
		return "ms"
	case Data:
		return "B"
	}
	return ""
}

// Metric is a k6 metric declaration. k6 writes one for each metric before its
// first point, with the thresholds the script set on it.
type Metric struct {
	Name     string
	Type     Type
	Contains ValueType
	// Thresholds are the expressions the script set on the metric itself
	// (e.g. "p(99)<2000"); thresholds on submetrics are not in k6's output.
	Thresholds []string
	// Submetrics are those the script's thresholds named, e.g. llm_ttft{model:gpt-4o}.
	Submetrics []Submetric
}

// Submetric is a submetric a k6 script's thresholds defined.
type Submetric struct {
	Name   string // llm_ttft{model:gpt-4o}
	Suffix string // model:gpt-4o
	Tags   []Tag  // model=gpt-4o, in key order
}

// decodeMetric decodes the data object of a Metric line.
func decodeMetric(in *interner, lineMetric string, data json.RawMessage) (*Metric, error) {
	var raw struct {
		Name       string            `json:"name"`
		Type       string            `json:"type"`
		Contains   string            `json:"contains"`
		Thresholds []json.RawMessage `json:"thresholds"`
		Submetrics []struct {
			Name   string            `json:"name"`
			Suffix string            `json:"suffix"`
			Tags   map[string]string `json:"tags"`
		} `json:"submetrics"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("bad Metric declaration: %v", err)
	}
	if raw.Name == "" {
		raw.Name = lineMetric
	}
	if raw.Name == "" {
		return nil, fmt.Errorf("Metric declaration without a name")
	}
	m := &Metric{Name: in.strOf(raw.Name)}
	// A type k6 does not have is named as such: the metric's samples could
	// not be read right (a Rate summed as a Trend). A missing type leaves the
	// metric TypeUnknown (taken as a Trend, with a warning); an unknown value
	// type is tolerated as Default.
	if raw.Type != "" {
		t, err := ParseType(raw.Type)
		if err != nil {
			return nil, fmt.Errorf("Metric declaration of %s: %w", m.Name, err)
		}
		m.Type = t
	}
	for i, n := range valueTypeNames {
		if n == raw.Contains {
			m.Contains = ValueType(i)
		}
	}
	for _, t := range raw.Thresholds {
		// k6 writes a threshold as its source string, or as an object
		// {"threshold":"p(99)<2000","abortOnFail":true,...}.
		var src string
		if err := json.Unmarshal(t, &src); err != nil {
			var obj struct {
				Threshold string `json:"threshold"`
			}
			if err := json.Unmarshal(t, &obj); err != nil || obj.Threshold == "" {
				return nil, fmt.Errorf("metric %s: threshold %s is neither a string nor {\"threshold\":...}", m.Name, bytes.TrimSpace(t))
			}
			src = obj.Threshold
		}
		m.Thresholds = append(m.Thresholds, src)
	}
	for _, s := range raw.Submetrics {
		sm := Submetric{Name: s.Name, Suffix: s.Suffix}
		for k, v := range s.Tags {
			sm.Tags = append(sm.Tags, Tag{k, v})
		}
		sortTags(sm.Tags)
		m.Submetrics = append(m.Submetrics, sm)
	}
	return m, nil
}
