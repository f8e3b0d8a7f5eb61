package thresholds

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// ReadFile reads checks from a file: either one check per line ("METRIC: EXPR",
// blank lines and # comments allowed), or a JSON object in the shape of k6's
// thresholds option, so a script's thresholds can be reused as they are:
//
//	{"llm_ttft": ["p(99)<2000"], "llm_requests_failed": [{"threshold": "rate<0.01", "abortOnFail": true}]}
//
// A JSON object with a single "thresholds" key (a k6 options object) is read the
// same way. Errors name the file, and the line for the line form.
func ReadFile(path string) ([]Check, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ReadChecks(data, path)
}

// ReadChecks parses the content of a checks file named name (see ReadFile).
func ReadChecks(data []byte, name string) ([]Check, error) {
	var (
		checks []Check
		err    error
	)
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		checks, err = parseThresholdsJSON(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	} else {
		checks, err = parseLines(data, name)
		if err != nil {
			return nil, err
		}
	}
	if len(checks) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoChecks)
	}
	return checks, nil
}

func parseLines(data []byte, name string) ([]Check, error) {
	var out []Check
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		cs, err := Parse(string(line))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		out = append(out, cs...)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// parseThresholdsJSON reads {"metric": [threshold, ...], ...} keeping the order
// of the keys.
func parseThresholdsJSON(data []byte) ([]Check, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object of thresholds: %v", err)
	}
	if inner, ok := top["thresholds"]; ok && len(top) == 1 {
		if bytes.HasPrefix(bytes.TrimSpace(inner), []byte("{")) {
			return parseThresholdsJSON(inner)
		}
	}
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out []Check
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var list []json.RawMessage
		if err := dec.Decode(&list); err != nil {
			return nil, fmt.Errorf("%q: want a list of thresholds: %v", key, err)
		}
		name, tags, err := ParseMetric(key)
		if err != nil {
			return nil, err
		}
		for _, raw := range list {
			var src string
			if err := json.Unmarshal(raw, &src); err != nil {
				var obj struct {
					Threshold *string `json:"threshold"`
				}
				if err := json.Unmarshal(raw, &obj); err != nil || obj.Threshold == nil {
					return nil, fmt.Errorf("%q: threshold %s is neither a string nor {\"threshold\": ...}", key, raw)
				}
				src = *obj.Threshold
			}
			e, err := ParseExpr(src)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", key, err)
			}
			out = append(out, newCheck(name, tags, e))
		}
	}
	return out, nil
}
