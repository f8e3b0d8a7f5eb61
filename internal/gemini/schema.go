// Package gemini holds what both the helper (checking answers) and the mock
// (generating them) need of Gemini's dialect: its responseSchema as JSON
// Schema.
package gemini

import (
	"encoding/json"
	"strings"
)

// JSONSchema turns Gemini's responseSchema (an OpenAPI 3.0 subset whose type
// names are upper case: OBJECT, STRING, ...) into JSON Schema: every "type"
// name in lower case, the rest as given.
func JSONSchema(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(lowerTypes(v))
}

func lowerTypes(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, e := range t {
			if s, ok := e.(string); ok && k == "type" {
				t[k] = strings.ToLower(s)
			} else {
				t[k] = lowerTypes(e)
			}
		}
	case []any:
		for i, e := range t {
			t[i] = lowerTypes(e)
		}
	}
	return x
}
