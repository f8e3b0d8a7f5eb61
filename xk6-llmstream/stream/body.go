package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// prepareBody returns the request body to send: the caller's JSON object with
// "stream": true (except for Gemini, which streams by its URL and rejects
// unknown fields) and, when addUsage, stream_options.include_usage set to true
// unless the caller set include_usage already (the caller's other
// stream_options, such as continuous_usage_stats, are kept). Every other field
// keeps its JSON value (white space outside strings is dropped and the top
// level keys come out sorted). It also returns the request's "model", if it
// is a string.
func prepareBody(body []byte, d Dialect, addUsage bool) ([]byte, string, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, "", errors.New("the request body is empty; want a JSON object such as {\"model\":…,\"messages\":[…]}")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		if err == nil || json.Valid(body) {
			return nil, "", fmt.Errorf("the request body is JSON but not an object (it starts with %q)", firstBytes(body, 20))
		}
		return nil, "", fmt.Errorf("the request body is not valid JSON: %v", err)
	}
	var model string
	if raw, ok := m["model"]; ok {
		_ = json.Unmarshal(raw, &model) // a non-string model is sent as given but not reported
	}
	if d != Gemini {
		m["stream"] = json.RawMessage("true")
	}
	if addUsage {
		so := map[string]json.RawMessage{}
		if raw, ok := m["stream_options"]; ok && string(bytes.TrimSpace(raw)) != "null" {
			if err := json.Unmarshal(raw, &so); err != nil || so == nil {
				return nil, "", fmt.Errorf("the request's stream_options is not a JSON object: %s", firstBytes(raw, 40))
			}
		}
		if _, set := so["include_usage"]; !set {
			so["include_usage"] = json.RawMessage("true")
		}
		raw, err := json.Marshal(so)
		if err != nil {
			return nil, "", fmt.Errorf("stream_options: %v", err)
		}
		m["stream_options"] = raw
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, "", fmt.Errorf("re-encoding the request body: %v", err)
	}
	return bytes.TrimRight(out.Bytes(), "\n"), model, nil
}

func firstBytes(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
