package gemini

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestJSONSchema lowers every type name, nested in properties and items, and
// keeps the rest (a property named "type" whose value is an object stays).
func TestJSONSchema(t *testing.T) {
	in := `{"type":"OBJECT","properties":{"name":{"type":"STRING","enum":["A","B"]},"tags":{"type":"ARRAY","items":{"type":"INTEGER"}},"type":{"type":"BOOLEAN"}},"required":["name"]}`
	want := `{"type":"object","properties":{"name":{"type":"string","enum":["A","B"]},"tags":{"type":"array","items":{"type":"integer"}},"type":{"type":"boolean"}},"required":["name"]}`
	got, err := JSONSchema(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	_ = json.Unmarshal(got, &g)
	_ = json.Unmarshal([]byte(want), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("JSONSchema = %s\nwant %s", got, want)
	}
	if _, err := JSONSchema(json.RawMessage(`{"type":`)); err == nil {
		t.Error("a schema that is not JSON gave no error")
	}
}
