package k6json

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// The reference decoder: encoding/json. Its verdict on a line is final; the fast
// path must agree with it on every line the fast path accepts.

var errNotObject = errors.New("not a JSON object")

// slow decodes a line with encoding/json. The error says what is wrong with the
// line (the caller adds the input name and line number).
func (dc *decoder) slow(line []byte, needTime bool, r *lineResult) error {
	*r = lineResult{}
	if len(bytes.TrimLeft(line, " \t\r\n")) == 0 {
		r.kind = lineBlank
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return jsonError(err)
	}
	if obj == nil {
		return errNotObject
	}
	typRaw, ok := obj["type"]
	if !ok {
		r.kind = lineOther
		return nil
	}
	var typ string
	if err := json.Unmarshal(typRaw, &typ); err != nil {
		return fmt.Errorf(`"type" is not a string: %s`, typRaw)
	}
	var name string
	if m, ok := obj["metric"]; ok {
		if err := json.Unmarshal(m, &name); err != nil {
			return fmt.Errorf(`"metric" is not a string: %s`, m)
		}
	}
	switch typ {
	case "Metric":
		decl, err := decodeMetric(dc.in, name, obj["data"])
		if err != nil {
			return err
		}
		r.kind = lineMetric
		r.decl = decl
		return nil
	case "Point":
		return dc.slowPoint(name, obj["data"], needTime, r)
	}
	r.kind = lineOther
	return nil
}

// slowPoint decodes a Point's data (nil when the line has none).
func (dc *decoder) slowPoint(name string, dataRaw json.RawMessage, needTime bool, r *lineResult) error {
	if name == "" {
		return errors.New("Point without a metric name")
	}
	if dataRaw == nil {
		return fmt.Errorf("Point of %s without data", name)
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(dataRaw, &data); err != nil || data == nil {
		return fmt.Errorf("Point of %s: data is not an object", name)
	}
	r.metric = dc.metric([]byte(name))
	if !r.metric.keep {
		r.kind = lineSkipped
		if needTime {
			var s string
			if raw, ok := data["time"]; ok && json.Unmarshal(raw, &s) == nil {
				if ns, err := unixNanoStd([]byte(s)); err == nil {
					r.unixNano, r.hasTime = ns, true
				}
			}
		}
		return nil
	}
	r.kind = linePoint
	timeRaw, ok := data["time"]
	if !ok {
		return fmt.Errorf("Point of %s without a time", name)
	}
	var ts string
	if err := json.Unmarshal(timeRaw, &ts); err != nil {
		return fmt.Errorf("Point of %s: time %s is not a string", name, timeRaw)
	}
	ns, err := unixNanoStd([]byte(ts))
	if err != nil {
		return fmt.Errorf("Point of %s: %v", name, err)
	}
	r.unixNano, r.hasTime = ns, true
	valueRaw, ok := data["value"]
	if !ok {
		return fmt.Errorf("Point of %s without a value", name)
	}
	if len(valueRaw) == 0 || (valueRaw[0] != '-' && (valueRaw[0] < '0' || valueRaw[0] > '9')) {
		return fmt.Errorf("Point of %s: value %s is not a number", name, valueRaw)
	}
	if err := json.Unmarshal(valueRaw, &r.value); err != nil {
		return fmt.Errorf("Point of %s: value %s: %v", name, valueRaw, jsonError(err))
	}
	if raw, ok := data["metadata"]; ok && dc.metadata {
		if err := dc.slowMetadata(name, raw, r); err != nil {
			return err
		}
	}
	r.tags, err = dc.slowTags(name, data["tags"])
	return err
}

// slowTags decodes and interns a Point's tags (nil when it has none).
func (dc *decoder) slowTags(name string, tagsRaw json.RawMessage) (*TagSet, error) {
	if tagsRaw == nil || string(tagsRaw) == "null" {
		return dc.in.sets[0], nil
	}
	if ts, ok := dc.in.byRaw[string(tagsRaw)]; ok {
		return ts, nil
	}
	var tm map[string]json.RawMessage
	if err := json.Unmarshal(tagsRaw, &tm); err != nil || tm == nil {
		return nil, fmt.Errorf("Point of %s: tags are not an object: %.40s", name, tagsRaw)
	}
	tags := make([]Tag, 0, len(tm))
	for k, raw := range tm {
		var v string
		switch {
		case string(raw) == "null":
			continue // a null tag is no tag
		case raw[0] == '"':
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, fmt.Errorf("Point of %s: tag %q: %v", name, k, err)
			}
		default:
			// Not a string (k6 writes only strings): keep the JSON text.
			var b bytes.Buffer
			if err := json.Compact(&b, raw); err != nil {
				return nil, fmt.Errorf("Point of %s: tag %q: %v", name, k, err)
			}
			v = b.String()
		}
		tags = append(tags, Tag{dc.in.strOf(k), dc.in.strOf(v)})
	}
	return dc.in.set(tags, tagsRaw), nil
}

// unixNanoStd parses a time with the standard library and checks that it fits in
// int64 nanoseconds.
func unixNanoStd(s []byte) (int64, error) {
	t, err := parseTimeStd(s)
	if err != nil {
		return 0, fmt.Errorf("bad time %q: %v", s, err)
	}
	if t.Before(minTime) || t.After(maxTime) {
		return 0, fmt.Errorf("time %q is outside the years 1678 to 2262", s)
	}
	return t.UnixNano(), nil
}

var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// jsonError shortens encoding/json's messages for a line-oriented report.
func jsonError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return err
}
