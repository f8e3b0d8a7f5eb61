package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Mode is what a level sets: an arrival rate or a number of VUs.
type Mode uint8

// The modes.
const (
	Rate Mode = iota // LLM_RATE: requests started per second (open model)
	VUs              // LLM_VUS: concurrent VUs (closed model)
)

// Env is the environment variable that hands the level to the script.
func (m Mode) Env() string {
	if m == VUs {
		return "LLM_VUS"
	}
	return "LLM_RATE"
}

// Unit is the unit of a level.
func (m Mode) Unit() string {
	if m == VUs {
		return "VUs"
	}
	return "req/s"
}

// String is the mode's name in results: "rate" or "vus".
func (m Mode) String() string {
	if m == VUs {
		return "vus"
	}
	return "rate"
}

// Round makes a level one the script can be given: a whole number of VUs (at
// least 1), or a rate with three significant digits.
func (m Mode) Round(v float64) float64 {
	if m == VUs {
		return math.Max(1, math.Round(v))
	}
	if v <= 0 {
		return v
	}
	scale := math.Pow(10, 2-math.Floor(math.Log10(v)))
	return math.Round(v*scale) / scale
}

// FormatLevel is a level as it goes into LLM_RATE, file names and the level
// tag: the shortest decimal form ("16", "47.5").
func FormatLevel(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// ParseLevels parses a comma-separated list of levels ("2,4,8"): positive
// numbers, whole for VUs, strictly increasing (a sweep climbs).
func ParseLevels(s string, m Mode) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := ParseLevel(f, m)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && v <= out[len(out)-1] {
			return nil, fmt.Errorf("levels %q: %s is not above %s; give the levels in increasing order", s, f, FormatLevel(out[len(out)-1]))
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("levels %q: no level given (want e.g. 2,4,8)", s)
	}
	return slices.Clip(out), nil
}

// ParseLevel parses one level: a positive number, whole for VUs.
func ParseLevel(s string, m Mode) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("level %q is not a positive number of %s", s, m.Unit())
	}
	if m == VUs && v != math.Trunc(v) {
		return 0, fmt.Errorf("level %q: VUs are a whole number", s)
	}
	return v, nil
}

// ParseResolution parses a search resolution: "5%" or "0.05", in (0, 1).
func ParseResolution(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v > 0 && v < 1) {
		return 0, fmt.Errorf("resolution %q: want a share of the level between 0 and 1, e.g. 5%% or 0.05", s)
	}
	return v, nil
}
