package stream

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/valyala/fastjson"
)

// Events are decoded with fastjson: one reused Parser per stream, no
// allocation per event, and only the fields the engine needs are looked at
// (an OpenAI chunk is mostly ids, fingerprints and logprobs). The helpers
// below check the types of the fields they read, so a field of the wrong type
// is reported (KindMalformed) rather than taken as absent.

// invalidJSON words a parse error: encoding/json says where the input goes
// wrong more plainly than the fast parser (this is the error path only).
func invalidJSON(data []byte, fastErr error) error {
	var x any
	var se *json.SyntaxError
	if err := json.Unmarshal(data, &x); errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	} else if err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	return fmt.Errorf("invalid JSON: %v", fastErr)
}

// isNull reports whether v is absent or JSON null.
func isNull(v *fastjson.Value) bool { return v == nil || v.Type() == fastjson.TypeNull }

// typeError words a field of the wrong JSON type.
func typeError(field string, v *fastjson.Value, want string) error {
	return fmt.Errorf("field %q is a JSON %s, want %s", field, v.Type(), want)
}

// getString returns the string field of o; absent or null gives nil.
func getString(o *fastjson.Value, field string) ([]byte, error) {
	v := o.Get(field)
	if isNull(v) {
		return nil, nil
	}
	if v.Type() != fastjson.TypeString {
		return nil, typeError(field, v, "a string")
	}
	b, _ := v.StringBytes()
	return b, nil
}

// getInt returns the integer field of o; ok is false when it is absent or null.
func getInt(o *fastjson.Value, field string) (n int, ok bool, err error) {
	v := o.Get(field)
	if isNull(v) {
		return 0, false, nil
	}
	if v.Type() != fastjson.TypeNumber {
		return 0, false, typeError(field, v, "a number")
	}
	f, _ := v.Float64()
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false, fmt.Errorf("field %q is %v, want an integer", field, f)
	}
	return int(f), true, nil
}

// appendText appends the text of a field that servers send as a string, as
// null, or as an array of content parts ([{"type":"text","text":"…"}], or
// "thinking" parts); parts of other shapes carry no text.
func appendText(dst []byte, o *fastjson.Value, field string) ([]byte, error) {
	v := o.Get(field)
	switch {
	case isNull(v):
		return dst, nil
	case v.Type() == fastjson.TypeString:
		b, _ := v.StringBytes()
		return append(dst, b...), nil
	case v.Type() == fastjson.TypeArray:
		parts, _ := v.Array()
		for _, p := range parts {
			if p.Type() != fastjson.TypeObject {
				continue
			}
			if t := p.Get("text"); t != nil && t.Type() == fastjson.TypeString {
				b, _ := t.StringBytes()
				dst = append(dst, b...)
			} else if t := p.Get("thinking"); t != nil && t.Type() == fastjson.TypeString {
				b, _ := t.StringBytes()
				dst = append(dst, b...)
			}
		}
		return dst, nil
	}
	return dst, typeError(field, v, "a string, null or an array of parts")
}

// getObject returns the object field of o, nil when absent or null.
func getObject(o *fastjson.Value, field string) (*fastjson.Value, error) {
	v := o.Get(field)
	if isNull(v) {
		return nil, nil
	}
	if v.Type() != fastjson.TypeObject {
		return nil, typeError(field, v, "an object")
	}
	return v, nil
}

// getArray returns the array field of o, nil when absent or null.
func getArray(o *fastjson.Value, field string) ([]*fastjson.Value, error) {
	v := o.Get(field)
	if isNull(v) {
		return nil, nil
	}
	if v.Type() != fastjson.TypeArray {
		return nil, typeError(field, v, "an array")
	}
	a, _ := v.Array()
	return a, nil
}

// groundTruth reads GroundTruthField (unix ns), 0 when absent or not a number.
func groundTruth(o *fastjson.Value) int64 {
	v := o.Get(GroundTruthField)
	if v == nil || v.Type() != fastjson.TypeNumber {
		return 0
	}
	n, err := v.Int64()
	if err != nil {
		return 0
	}
	return n
}

// valueErrorMessage words an error value found in a stream: an object with
// "message" (and "type"), or a string; anything else as its JSON text.
func valueErrorMessage(v *fastjson.Value) string {
	if isNull(v) {
		return ""
	}
	switch v.Type() {
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return string(b)
	case fastjson.TypeObject:
		msg := string(v.GetStringBytes("message"))
		if typ := string(v.GetStringBytes("type")); typ != "" {
			if msg == "" {
				return typ
			}
			return typ + ": " + msg
		}
		if msg != "" {
			return msg
		}
	}
	return v.String()
}
