package k6json

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// lineKind says what a line was.
type lineKind uint8

const (
	lineBlank   lineKind = iota // only white space
	lineOther                   // a JSON object that is neither Point nor Metric: ignored
	lineMetric                  // a Metric declaration
	linePoint                   // a Point of a kept metric
	lineSkipped                 // a Point of a metric the caller does not keep
)

// metricState is what a Scanner knows about one metric name.
type metricState struct {
	name string
	keep bool
}

// lineResult is a decoded line. For lineSkipped, hasTime says whether unixNano
// holds the point's time (it is only looked for while the input's start is unknown).
type lineResult struct {
	kind     lineKind
	metric   *metricState
	unixNano int64
	hasTime  bool
	value    float64
	tags     *TagSet
	decl     *Metric
	meta     []Tag // the point's metadata, when the decoder keeps it
}

// decoder holds what both line decoders share: interned strings and tag sets,
// and the caller's choice of metrics.
type decoder struct {
	in      *interner
	metrics map[string]*metricState
	keep    func(name string) bool
	tagBuf  []Tag
	// metadata asks for each kept point's metadata object (metadata.go).
	metadata bool
}

func newDecoder(keep func(string) bool) *decoder {
	return &decoder{in: newInterner(), metrics: make(map[string]*metricState), keep: keep}
}

func (dc *decoder) metric(name []byte) *metricState {
	if ms, ok := dc.metrics[string(name)]; ok {
		return ms
	}
	n := dc.in.str(name)
	ms := &metricState{name: n, keep: dc.keep == nil || dc.keep(n)}
	dc.metrics[n] = ms
	return ms
}

// ---------------------------------------------------------------------------
// The fast path: a byte-level decoder for k6's own line shape. It returns false
// ("ask the reference decoder") on anything it is not sure about; it never
// reports an error itself.

type cursor struct {
	b []byte
	i int
}

func (c *cursor) ws() {
	if c.i < len(c.b) && c.b[c.i] > ' ' {
		return // the common case: k6 writes no white space
	}
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\r', '\n':
			c.i++
		default:
			return
		}
	}
}

func (c *cursor) eat(ch byte) bool {
	if c.i < len(c.b) && c.b[c.i] == ch {
		c.i++
		return true
	}
	return false
}

// str reads a JSON string that has no escapes, no control characters and valid
// UTF-8, and returns its content (aliasing the line).
func (c *cursor) str() ([]byte, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false
	}
	start := c.i + 1
	n := bytes.IndexByte(c.b[start:], '"')
	if n < 0 {
		return nil, false
	}
	s := c.b[start : start+n]
	ascii := true
	for _, ch := range s {
		if ch < 0x20 || ch == '\\' {
			return nil, false
		}
		if ch >= 0x80 {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(s) {
		return nil, false
	}
	c.i = start + n + 1
	return s, true
}

// number reads a JSON number (RFC 8259 grammar) and returns its text.
func (c *cursor) number() ([]byte, bool) {
	b, i := c.b, c.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, false
		}
	}
	c.i = i
	return b[start:i], true
}

// maxSkipDepth bounds the nesting the fast path skips over; deeper values go to
// encoding/json.
const maxSkipDepth = 64

// skip passes over any JSON value, checking that it is well formed.
func (c *cursor) skip(depth int) bool {
	if c.i >= len(c.b) || depth > maxSkipDepth {
		return false
	}
	switch ch := c.b[c.i]; {
	case ch == '"':
		return c.skipString()
	case ch == '{':
		c.i++
		c.ws()
		if c.eat('}') {
			return true
		}
		for {
			c.ws()
			if !c.skipString() {
				return false
			}
			c.ws()
			if !c.eat(':') {
				return false
			}
			c.ws()
			if !c.skip(depth + 1) {
				return false
			}
			c.ws()
			if c.eat('}') {
				return true
			}
			if !c.eat(',') {
				return false
			}
		}
	case ch == '[':
		c.i++
		c.ws()
		if c.eat(']') {
			return true
		}
		for {
			c.ws()
			if !c.skip(depth + 1) {
				return false
			}
			c.ws()
			if c.eat(']') {
				return true
			}
			if !c.eat(',') {
				return false
			}
		}
	case ch == 't':
		return c.lit("true")
	case ch == 'f':
		return c.lit("false")
	case ch == 'n':
		return c.lit("null")
	default:
		_, ok := c.number()
		return ok
	}
}

func (c *cursor) lit(s string) bool {
	if len(c.b)-c.i >= len(s) && string(c.b[c.i:c.i+len(s)]) == s {
		c.i += len(s)
		return true
	}
	return false
}

// skipString passes over a JSON string, escapes included (their content is not
// needed, only their validity). Invalid UTF-8 is accepted, as encoding/json does.
func (c *cursor) skipString() bool {
	if !c.eat('"') {
		return false
	}
	for c.i < len(c.b) {
		ch := c.b[c.i]
		switch {
		case ch == '"':
			c.i++
			return true
		case ch < 0x20:
			return false
		case ch == '\\':
			if c.i+1 >= len(c.b) {
				return false
			}
			switch c.b[c.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.i += 2
			case 'u':
				if c.i+6 > len(c.b) {
					return false
				}
				for _, h := range c.b[c.i+2 : c.i+6] {
					if !isHex(h) {
						return false
					}
				}
				c.i += 6
			default:
				return false
			}
		default:
			c.i++
		}
	}
	return false
}

func isHex(h byte) bool {
	return h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F'
}

// fast decodes a line of k6's usual shape. needTime asks for the time of a point
// of a metric that is not kept (while the input's start time is unknown).
func (dc *decoder) fast(line []byte, needTime bool, r *lineResult) bool {
	c := cursor{b: line}
	c.ws()
	if c.i == len(line) {
		*r = lineResult{kind: lineBlank}
		return true
	}
	if !c.eat('{') {
		return false
	}
	var (
		metricName, typ  []byte
		seenM, seenT     bool
		dataStart        = -1
		dataEnd          int
		dataDone         bool
		ms               *metricState
		isPoint, isOther bool
	)
	c.ws()
	if !c.eat('}') {
		for {
			c.ws()
			key, ok := c.str()
			if !ok {
				return false
			}
			c.ws()
			if !c.eat(':') {
				return false
			}
			c.ws()
			switch string(key) {
			case "metric":
				if seenM {
					return false
				}
				seenM = true
				if metricName, ok = c.str(); !ok || len(metricName) == 0 {
					return false
				}
			case "type":
				if seenT {
					return false
				}
				seenT = true
				if typ, ok = c.str(); !ok {
					return false
				}
				switch string(typ) {
				case "Point":
					isPoint = true
				case "Metric":
					return false // rare: declarations go to encoding/json
				default:
					isOther = true
				}
			case "data":
				if dataStart >= 0 || c.i >= len(line) || line[c.i] != '{' {
					return false
				}
				dataStart = c.i
				if isPoint && seenM {
					ms = dc.metric(metricName)
					if ms.keep || needTime {
						if !dc.fastData(&c, ms.keep, r) {
							return false
						}
						dataDone = true
						dataEnd = c.i
						break
					}
				}
				if !c.skip(0) {
					return false
				}
				dataEnd = c.i
			default:
				if !c.skip(0) {
					return false
				}
			}
			c.ws()
			if c.eat('}') {
				break
			}
			if !c.eat(',') {
				return false
			}
		}
	}
	c.ws()
	if c.i != len(line) {
		return false
	}
	if !seenT || isOther {
		*r = lineResult{kind: lineOther}
		return true
	}
	// A Point.
	if !seenM || dataStart < 0 {
		return false
	}
	if ms == nil {
		ms = dc.metric(metricName)
	}
	if !dataDone && (ms.keep || needTime) {
		d := cursor{b: line[:dataEnd], i: dataStart}
		if !dc.fastData(&d, ms.keep, r) || d.i != dataEnd {
			return false
		}
	}
	r.metric = ms
	r.decl = nil
	if ms.keep {
		r.kind = linePoint
	} else {
		r.kind = lineSkipped
		r.tags = nil
		r.value = 0
		if !needTime {
			r.hasTime = false
			r.unixNano = 0
		}
	}
	return true
}

// fastData decodes a Point's data object. With full false only the time is
// wanted, and a missing or odd time is not an error (hasTime says if it was found).
func (dc *decoder) fastData(c *cursor, full bool, r *lineResult) bool {
	if !c.eat('{') {
		return false
	}
	var seenTime, seenValue, seenTags bool
	r.tags = nil
	r.hasTime = false
	r.meta = r.meta[:0]
	c.ws()
	if !c.eat('}') {
		for {
			c.ws()
			key, ok := c.str()
			if !ok {
				return false
			}
			c.ws()
			if !c.eat(':') {
				return false
			}
			c.ws()
			switch string(key) {
			case "time":
				if seenTime {
					return false
				}
				seenTime = true
				s, ok := c.str()
				if !ok {
					return false
				}
				ns, ok := parseTimeFast(s)
				if !ok {
					return false
				}
				r.unixNano, r.hasTime = ns, true
			case "value":
				if seenValue {
					return false
				}
				seenValue = true
				if !full {
					if !c.skip(0) {
						return false
					}
					break
				}
				num, ok := c.number()
				if !ok {
					return false
				}
				v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(num), len(num)), 64)
				if err != nil {
					return false
				}
				r.value = v
			case "tags":
				if seenTags {
					return false
				}
				seenTags = true
				if !full {
					if !c.skip(0) {
						return false
					}
					break
				}
				if c.lit("null") {
					r.tags = dc.in.sets[0]
					break
				}
				start := c.i
				if c.i >= len(c.b) || c.b[c.i] != '{' {
					return false
				}
				// Shortcut: if the bytes up to the first '}' are a tags object
				// seen before, they are that whole object (a valid JSON object's
				// extent is fixed by its bytes), and nothing needs scanning.
				if end := bytes.IndexByte(c.b[start:], '}'); end > 0 {
					if ts, ok := dc.in.byRaw[string(c.b[start:start+end+1])]; ok {
						r.tags = ts
						c.i = start + end + 1
						break
					}
				}
				if !c.skip(0) {
					return false
				}
				raw := c.b[start:c.i]
				if ts, ok := dc.in.byRaw[string(raw)]; ok {
					r.tags = ts
				} else if r.tags = dc.fastTags(raw); r.tags == nil {
					return false
				}
			case "metadata":
				if full && dc.metadata {
					if !dc.fastMetadata(c, r) {
						return false
					}
					break
				}
				if !c.skip(0) {
					return false
				}
			default:
				if !c.skip(0) {
					return false
				}
			}
			c.ws()
			if c.eat('}') {
				break
			}
			if !c.eat(',') {
				return false
			}
		}
	}
	if full {
		if !seenTime || !seenValue {
			return false
		}
		if r.tags == nil {
			r.tags = dc.in.sets[0]
		}
	}
	return true
}

// fastTags decodes and interns a tags object whose keys and values are plain
// strings; nil means "ask encoding/json".
func (dc *decoder) fastTags(raw []byte) *TagSet {
	c := cursor{b: raw}
	c.eat('{')
	tags := dc.tagBuf[:0]
	c.ws()
	if !c.eat('}') {
		for {
			c.ws()
			k, ok := c.str()
			if !ok {
				return nil
			}
			c.ws()
			if !c.eat(':') {
				return nil
			}
			c.ws()
			v, ok := c.str()
			if !ok {
				return nil
			}
			for _, t := range tags {
				if t.Key == string(k) {
					return nil // duplicate key: encoding/json's last-wins rule applies
				}
			}
			tags = append(tags, Tag{dc.in.str(k), dc.in.str(v)})
			c.ws()
			if c.eat('}') {
				break
			}
			if !c.eat(',') {
				return nil
			}
		}
	}
	dc.tagBuf = tags[:0]
	return dc.in.set(tags, raw)
}

// ---------------------------------------------------------------------------
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
	default:
		r.kind = lineOther
		return nil
	}
	if name == "" {
		return errors.New("Point without a metric name")
	}
	dataRaw, ok := obj["data"]
	if !ok {
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
	tagsRaw, ok := data["tags"]
	if !ok || string(tagsRaw) == "null" {
		r.tags = dc.in.sets[0]
		return nil
	}
	if ts, ok := dc.in.byRaw[string(tagsRaw)]; ok {
		r.tags = ts
		return nil
	}
	var tm map[string]json.RawMessage
	if err := json.Unmarshal(tagsRaw, &tm); err != nil || tm == nil {
		return fmt.Errorf("Point of %s: tags are not an object: %.40s", name, tagsRaw)
	}
	tags := make([]Tag, 0, len(tm))
	for k, raw := range tm {
		var v string
		switch {
		case string(raw) == "null":
			continue // a null tag is no tag
		case raw[0] == '"':
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("Point of %s: tag %q: %v", name, k, err)
			}
		default:
			// Not a string (k6 writes only strings): keep the JSON text.
			var b bytes.Buffer
			if err := json.Compact(&b, raw); err != nil {
				return fmt.Errorf("Point of %s: tag %q: %v", name, k, err)
			}
			v = b.String()
		}
		tags = append(tags, Tag{dc.in.strOf(k), dc.in.strOf(v)})
	}
	r.tags = dc.in.set(tags, tagsRaw)
	return nil
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
