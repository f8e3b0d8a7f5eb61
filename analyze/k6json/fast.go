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
	t := topLine{dataStart: -1}
	more, ok := c.open()
	for ; more; more, ok = c.next() {
		key, kok := c.key()
		if !kok || !dc.fastMember(&c, key, &t, needTime, r) {
			return false
		}
	}
	if !ok {
		return false
	}
	c.ws()
	if c.i != len(line) {
		return false
	}
	if !t.seenT || t.isOther {
		*r = lineResult{kind: lineOther}
		return true
	}
	return dc.fastPoint(line, &t, needTime, r)
}

// fastMember reads the value of one member of a line.
func (dc *decoder) fastMember(c *cursor, key []byte, t *topLine, needTime bool, r *lineResult) bool {
	var ok bool
	switch string(key) {
	case "metric":
		if t.seenM {
			return false
		}
		t.seenM = true
		t.metricName, ok = c.str()
		return ok && len(t.metricName) > 0
	case "type":
		if t.seenT {
			return false
		}
		t.seenT = true
		typ, ok := c.str()
		if !ok {
			return false
		}
		switch string(typ) {
		case "Point":
			t.isPoint = true
		case "Metric":
			return false // rare: declarations go to encoding/json
		default:
			t.isOther = true
		}
		return true
	case "data":
		if t.dataStart >= 0 || c.i >= len(c.b) || c.b[c.i] != '{' {
			return false
		}
		t.dataStart = c.i
		// The data of a Point whose metric is known is decoded at once;
		// otherwise it is skipped now and decoded at the end of the line.
		if t.isPoint && t.seenM {
			t.ms = dc.metric(t.metricName)
			if t.ms.keep || needTime {
				t.dataDone = dc.fastData(c, t.ms.keep, r)
				t.dataEnd = c.i
				return t.dataDone
			}
		}
		ok = c.skip(0)
		t.dataEnd = c.i
		return ok
	}
	return c.skip(0)
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

// pointData is what fastData has read of a Point's data object.
type pointData struct {
	seenTime, seenValue, seenTags bool
}

// fastData decodes a Point's data object. With full false only the time is
// wanted, and a missing or odd time is not an error (hasTime says if it was found).
func (dc *decoder) fastData(c *cursor, full bool, r *lineResult) bool {
	var d pointData
	r.tags = nil
	r.hasTime = false
	more, ok := c.open()
	for ; more; more, ok = c.next() {
		key, kok := c.key()
		if !kok || !dc.dataMember(c, key, &d, full, r) {
			return false
		}
	}
	if !ok {
		return false
	}
	if full {
		if !d.seenTime || !d.seenValue {
			return false
		}
		if r.tags == nil {
			r.tags = dc.in.sets[0]
		}
	}
	return true
}

// dataMember reads the value of one member of a Point's data.
func (dc *decoder) dataMember(c *cursor, key []byte, d *pointData, full bool, r *lineResult) bool {
	switch string(key) {
	case "time":
		if d.seenTime {
			return false
		}
		d.seenTime = true
		s, ok := c.str()
		if !ok {
			return false
		}
		r.unixNano, r.hasTime = parseTimeFast(s)
		return r.hasTime
	case "value":
		if d.seenValue {
			return false
		}
		d.seenValue = true
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
	case "tags":
		if d.seenTags {
			return false
		}
		d.seenTags = true
		if !full {
			return c.skip(0)
		}
		r.tags = dc.fastTagsValue(c)
		return r.tags != nil
	}
	return c.skip(0)
}

// fastTagsValue reads a Point's tags: null, a tags object seen before, or a
// new one of plain strings; nil means "ask encoding/json".
func (dc *decoder) fastTagsValue(c *cursor) *TagSet {
	if c.lit("null") {
		return dc.in.sets[0]
	}
	start := c.i
	if c.i >= len(c.b) || c.b[c.i] != '{' {
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
	more, ok := c.open()
	for ; more; more, ok = c.next() {
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
