package k6sim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Options is the part of a script's exported options that the simulator reads.
// Raw keeps all of it.
type Options struct {
	VUs        int                      `json:"vus"`
	Iterations int                      `json:"iterations"`
	Duration   string                   `json:"duration"`
	Stages     []Stage                  `json:"stages"`
	Scenarios  map[string]Scenario      `json:"scenarios"`
	Thresholds map[string]ThresholdList `json:"thresholds"`
	Tags       map[string]string        `json:"tags"`
	Raw        json.RawMessage          `json:"-"`
}

// Stage is one stage of ramping-vus, ramping-arrival-rate or options.stages.
type Stage struct {
	Duration string `json:"duration"`
	Target   int    `json:"target"`
}

// Scenario is one entry of options.scenarios.
type Scenario struct {
	Executor        string            `json:"executor"`
	Exec            string            `json:"exec"`
	VUs             int               `json:"vus"`
	Iterations      int               `json:"iterations"`
	Duration        string            `json:"duration"`
	StartVUs        int               `json:"startVUs"`
	PreAllocatedVUs int               `json:"preAllocatedVUs"`
	MaxVUs          int               `json:"maxVUs"`
	Rate            float64           `json:"rate"`
	StartRate       float64           `json:"startRate"`
	TimeUnit        string            `json:"timeUnit"`
	StartTime       string            `json:"startTime"`
	GracefulStop    string            `json:"gracefulStop"`
	Stages          []Stage           `json:"stages"`
	Tags            map[string]string `json:"tags"`
	Env             map[string]string `json:"env"`
}

// Threshold is one threshold expression of a metric.
type Threshold struct {
	Expr           string `json:"threshold"`
	AbortOnFail    bool   `json:"abortOnFail"`
	DelayAbortEval string `json:"delayAbortEval"`
}

// ThresholdList is a metric's thresholds; each may be written as a string or
// as an object {threshold, abortOnFail, delayAbortEval}.
type ThresholdList []Threshold

// UnmarshalJSON accepts k6's two spellings of a threshold.
func (l *ThresholdList) UnmarshalJSON(b []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return fmt.Errorf("thresholds must be an array: %w", err)
	}
	out := make(ThresholdList, 0, len(items))
	for _, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err == nil {
			out = append(out, Threshold{Expr: s})
			continue
		}
		var t Threshold
		if err := json.Unmarshal(it, &t); err != nil {
			return fmt.Errorf("threshold %s is neither a string nor {threshold, abortOnFail}: %w", it, err)
		}
		if t.Expr == "" {
			return fmt.Errorf("threshold %s has no \"threshold\" expression", it)
		}
		out = append(out, t)
	}
	*l = out
	return nil
}

func parseOptions(raw []byte) (Options, error) {
	var o Options
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "undefined" {
		return o, nil
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return o, fmt.Errorf("k6sim: options: %w", err)
	}
	o.Raw = append(json.RawMessage(nil), raw...)
	for name, s := range o.Scenarios {
		if s.Executor == "" {
			return o, fmt.Errorf("k6sim: options.scenarios.%s: executor is required", name)
		}
		switch s.Executor {
		case "shared-iterations", "per-vu-iterations", "constant-vus", "ramping-vus",
			"constant-arrival-rate", "ramping-arrival-rate", "externally-controlled":
		default:
			return o, fmt.Errorf("k6sim: options.scenarios.%s: unknown executor %q", name, s.Executor)
		}
		for _, d := range []struct{ field, v string }{
			{"duration", s.Duration}, {"startTime", s.StartTime}, {"timeUnit", s.TimeUnit}, {"gracefulStop", s.GracefulStop},
		} {
			if _, err := parseDuration(d.v); err != nil {
				return o, fmt.Errorf("k6sim: options.scenarios.%s.%s: %w", name, d.field, err)
			}
		}
		for i, st := range s.Stages {
			if _, err := parseDuration(st.Duration); err != nil {
				return o, fmt.Errorf("k6sim: options.scenarios.%s.stages[%d].duration: %w", name, i, err)
			}
		}
	}
	for metric, list := range o.Thresholds {
		if _, _, err := parseThresholdKey(metric); err != nil {
			return o, fmt.Errorf("k6sim: options.thresholds: %w", err)
		}
		for _, t := range list {
			if _, err := parseThresholdExpr(t.Expr); err != nil {
				return o, fmt.Errorf("k6sim: options.thresholds[%q]: %w", metric, err)
			}
		}
	}
	return o, nil
}

var durationPartRE = regexp.MustCompile(`(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)`)

// parseDuration parses a k6-style duration ("1m30s", "250ms", "2h", "1.5s") or
// a bare number of seconds as k6 does for options; "" is zero.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(time.Second)), nil
	}
	unit := map[string]float64{
		"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9,
	}
	var total float64
	pos := 0
	for _, m := range durationPartRE.FindAllStringSubmatchIndex(s, -1) {
		if m[0] != pos {
			break
		}
		f, _ := strconv.ParseFloat(s[m[2]:m[3]], 64)
		total += f * unit[s[m[4]:m[5]]]
		pos = m[1]
	}
	if pos != len(s) {
		return 0, fmt.Errorf("%q is not a duration (use e.g. 500ms, 30s, 1m30s)", s)
	}
	return time.Duration(total), nil
}

// durationParam reads a k6 duration parameter given as a number of
// milliseconds or a duration string (as http params.timeout).
func durationParam(v any) (time.Duration, error) {
	switch x := v.(type) {
	case int64:
		return time.Duration(x) * time.Millisecond, nil
	case float64:
		return time.Duration(x * float64(time.Millisecond)), nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return time.Duration(f * float64(time.Millisecond)), nil
		}
		return parseDuration(x)
	default:
		return 0, fmt.Errorf("%v is not a duration", v)
	}
}
