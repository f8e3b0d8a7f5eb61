package k6json

import (
	"bytes"
	"strconv"
	"unsafe"
)

// The fast path: a byte-level decoder for k6's own line shape. It returns false
// ("ask the reference decoder") on anything it is not sure about; it never
// reports an error itself.

// topLine is what the fast path has read of a line's members.
type topLine struct {
	metricName         []byte
	seenM, seenT       bool
	dataStart, dataEnd int // the data object's extent; dataStart -1 until seen
	dataDone           bool
	ms                 *metricState
	isPoint, isOther   bool
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
	if !c.isOpen() {
		return false
	}
	t := topLine{dataStart: -1}
	ok := true
	for more := c.open(); more; more, ok = c.next() {
		key, kok := c.key()
		if !kok {
			return false
		}
		switch string(key) {
		case "metric":
			if t.seenM {
				return false
			}
			t.seenM = true
			if t.metricName, ok = c.str(); !ok || len(t.metricName) == 0 {
				return false
			}
		case "type":
			if t.seenT || !t.readType(&c) {
				return false
			}
		case "data":
			if t.dataStart >= 0 || !c.isOpen() {
				return false
			}
			t.dataStart = c.i
			// The data of a Point whose metric is known is decoded at once;
			// otherwise it is skipped now and decoded at the end of the line.
			if t.isPoint && t.seenM {
				t.ms = dc.metric(t.metricName)
				t.dataDone = t.ms.keep || needTime
			}
			if t.dataDone {
				ok = dc.fastData(&c, t.ms.keep, r)
			} else {
				ok = c.skip(0)
			}
			t.dataEnd = c.i
			if !ok {
				return false
			}
		default:
			if !c.skip(0) {
				return false
			}
		}
	}
	c.ws()
	if !ok || c.i != len(line) {
		return false
	}
	if !t.seenT || t.isOther {
		*r = lineResult{kind: lineOther}
		return true
	}
	return dc.fastPoint(line, &t, needTime, r)
}

// readType reads the line's type: a Point, or another line the fast path
// need not decode; a Metric declaration (rare) goes to encoding/json.
func (t *topLine) readType(c *cursor) bool {
	t.seenT = true
	typ, ok := c.str()
	if !ok {
		return false
	}
	switch string(typ) {
	case "Point":
		t.isPoint = true
	case "Metric":
		return false
	default:
		t.isOther = true
	}
	return true
}

// fastPoint finishes a Point line: decodes its data if that came before its
// metric or type, and fills in the result.
func (dc *decoder) fastPoint(line []byte, t *topLine, needTime bool, r *lineResult) bool {
	if !t.seenM || t.dataStart < 0 {
		return false
	}
	ms := t.ms
	if ms == nil {
		ms = dc.metric(t.metricName)
	}
	if !t.dataDone && (ms.keep || needTime) {
		d := cursor{b: line[:t.dataEnd], i: t.dataStart}
		if !dc.fastData(&d, ms.keep, r) || d.i != t.dataEnd {
			return false
		}
	}
	r.metric = ms
	r.decl = nil
	if ms.keep {
		r.kind = linePoint
		return true
	}
	r.kind = lineSkipped
	r.tags = nil
	r.value = 0
	if !needTime {
		r.hasTime = false
		r.unixNano = 0
	}
	return true
}

// fastData decodes a Point's data object. With full false only the time is
// wanted, and a missing or odd time is not an error (hasTime says if it was found).
func (dc *decoder) fastData(c *cursor, full bool, r *lineResult) bool {
	var seenTime, seenValue, seenTags bool
	if !c.isOpen() {
		return false
	}
	r.tags = nil
	r.hasTime = false
	r.meta = r.meta[:0]
	ok := true
	for more := c.open(); more; more, ok = c.next() {
		key, kok := c.key()
		if !kok {
			return false
		}
		switch string(key) {
		case "time":
			if seenTime {
				return false
			}
			seenTime = true
			s, sok := c.str()
			if !sok {
				return false
			}
			if r.unixNano, r.hasTime = parseTimeFast(s); !r.hasTime {
				return false
			}
		case "value":
			if seenValue {
				return false
			}
			seenValue = true
			if !dc.fastValue(c, full, r) {
				return false
			}
		case "tags":
			if seenTags {
				return false
			}
			seenTags = true
			if !full {
				if !c.skip(0) {
					return false
				}
			} else if r.tags = dc.fastTagsValue(c); r.tags == nil {
				return false
			}
		case "metadata":
			if full && dc.metadata {
				if !dc.fastMetadata(c, r) {
					return false
				}
			} else if !c.skip(0) {
				return false
			}
		default:
			if !c.skip(0) {
				return false
			}
		}
	}
	if !ok || full && (!seenTime || !seenValue) {
		return false
	}
	if full && r.tags == nil {
		r.tags = dc.in.sets[0]
	}
	return true
}

// fastValue reads a Point's value (skips it when not full).
func (dc *decoder) fastValue(c *cursor, full bool, r *lineResult) bool {
	if !full {
		return c.skip(0)
	}
	num, ok := c.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(num), len(num)), 64)
	r.value = v
	return err == nil
}

// fastTagsValue reads a Point's tags: null, a tags object seen before, or a
// new one of plain strings; nil means "ask encoding/json".
func (dc *decoder) fastTagsValue(c *cursor) *TagSet {
	if c.lit("null") {
		return dc.in.sets[0]
	}
	start := c.i
	if !c.isOpen() {
		return nil
	}
	// Shortcut: if the bytes up to the first '}' are a tags object seen
	// before, they are that whole object (a valid JSON object's extent is
	// fixed by its bytes), and nothing needs scanning.
	if end := bytes.IndexByte(c.b[start:], '}'); end > 0 {
		if ts, ok := dc.in.byRaw[string(c.b[start:start+end+1])]; ok {
			c.i = start + end + 1
			return ts
		}
	}
	if !c.skip(0) {
		return nil
	}
	raw := c.b[start:c.i]
	if ts, ok := dc.in.byRaw[string(raw)]; ok {
		return ts
	}
	return dc.fastTags(raw)
}

// fastTags decodes and interns a tags object whose keys and values are plain
// strings; nil means "ask encoding/json".
func (dc *decoder) fastTags(raw []byte) *TagSet {
	c := cursor{b: raw}
	tags := dc.tagBuf[:0]
	ok := true
	for more := c.open(); more; more, ok = c.next() {
		k, kok := c.key()
		if !kok {
			return nil
		}
		v, vok := c.str()
		if !vok {
			return nil
		}
		for _, t := range tags {
			if t.Key == string(k) {
				return nil // duplicate key: encoding/json's last-wins rule applies
			}
		}
		tags = append(tags, Tag{dc.in.str(k), dc.in.str(v)})
	}
	if !ok {
		return nil
	}
	dc.tagBuf = tags[:0]
	return dc.in.set(tags, raw)
}
