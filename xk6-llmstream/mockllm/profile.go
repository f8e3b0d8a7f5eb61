package mockllm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"
)

// A profile is JSON whose names are the json tags of Config and the types it
// holds: a setting is declared once, in its struct (its flag too, see
// settings.go). The decoder below walks
// those tags; only what the format itself adds has code of its own: durations
// as strings, null resetting a setting, the "models" overlay, counts given as a
// number, and a "dist" replacing a distribution whole.

// LoadProfile reads the JSON profile at path (format in docs/mock-flags.md) over
// DefaultConfig: fields the profile leaves out keep their default, a null
// resets a field to its zero value.
func LoadProfile(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("profile: %w", err)
	}
	cfg, err := ParseProfile(data, DefaultConfig())
	if err != nil {
		return Config{}, fmt.Errorf("profile %s: %w", path, err)
	}
	return cfg, nil
}

// ParseProfile decodes a JSON profile over base and validates the result.
// Errors name the field (as a dotted path) or the line and column; an unknown
// field is an error naming it.
//
// The "models" object overrides "default" per model: each model starts as a
// copy of the resulting default, then takes the fields it sets.
func ParseProfile(data []byte, base Config) (Config, error) {
	if err := checkSyntax(data); err != nil {
		return Config{}, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Config{}, errors.New("want a JSON object")
	}
	rawModels, hasModels := top["models"]
	delete(top, "models")
	cfg := base
	if err := decodeMembers(top, reflect.ValueOf(&cfg).Elem()); err != nil {
		return Config{}, err
	}
	models := make(map[string]ModelConfig, len(base.Models))
	for k, v := range base.Models {
		models[k] = v
	}
	if hasModels {
		var err error
		if models, err = overlayModels(rawModels, models, cfg.Default); err != nil {
			return Config{}, err
		}
	}
	cfg.Models = models
	if len(cfg.Models) == 0 {
		cfg.Models = nil
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// overlayModels decodes the "models" object over models: a model it names and
// models lacks starts as a copy of def. null empties models.
func overlayModels(r json.RawMessage, models map[string]ModelConfig, def ModelConfig) (map[string]ModelConfig, error) {
	if isNull(r) {
		return map[string]ModelConfig{}, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r, &raw); err != nil {
		return nil, wrapField("models", errors.New("want an object of model name → model settings"))
	}
	for _, name := range sortedKeys(raw) {
		if name == "" {
			return nil, errors.New("models: empty model name")
		}
		m, ok := models[name]
		if !ok {
			m = def
		}
		if err := decodeSetting(raw[name], reflect.ValueOf(&m).Elem()); err != nil {
			return nil, wrapField(fmt.Sprintf("models.%q", name), err)
		}
		models[name] = m
	}
	return models, nil
}

// checkSyntax reports a JSON syntax error with its line and column.
func checkSyntax(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	if err == nil {
		if _, ok := v.(map[string]any); !ok {
			return errors.New("want a JSON object at the top")
		}
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, se.Offset)
		return fmt.Errorf("line %d, column %d: %v", line, col, se)
	}
	return err
}

func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

// profileDecoder is a setting whose profile form is not the plain object of
// its fields.
type profileDecoder interface {
	decodeProfile(r json.RawMessage) error
}

// decodeSetting decodes one profile value over v (addressable): null resets v
// to its zero value, a struct is decoded field by field by its json tags.
func decodeSetting(r json.RawMessage, v reflect.Value) error {
	if isNull(r) {
		v.SetZero()
		return nil
	}
	p := v.Addr().Interface()
	switch p := p.(type) {
	case profileDecoder:
		return p.decodeProfile(r)
	case *time.Duration:
		return (*duration)(p).UnmarshalJSON(r)
	}
	if v.Kind() == reflect.Struct {
		return decodeObject(r, v)
	}
	if err := json.Unmarshal(r, p); err != nil {
		return typeErr(kindName(v.Kind()), r)
	}
	return nil
}

// decodeObject decodes a JSON object over the struct v.
func decodeObject(r json.RawMessage, v reflect.Value) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r, &m); err != nil || m == nil {
		return errors.New("want a JSON object")
	}
	return decodeMembers(m, v)
}

// decodeMembers decodes the members of a JSON object, in sorted order, into
// the fields of the struct v that their json tags name; an unknown name is an
// error naming it and the known ones.
func decodeMembers(m map[string]json.RawMessage, v reflect.Value) error {
	fields := tagged(v.Type())
	for _, k := range sortedKeys(m) {
		i, ok := fields[k]
		if !ok {
			return fmt.Errorf("unknown field %q (known: %s)", k, strings.Join(sortedKeys(fields), ", "))
		}
		if err := decodeSetting(m[k], v.Field(i)); err != nil {
			return wrapField(k, err)
		}
	}
	return nil
}

// tagged maps the json names of t's fields to their indexes; fields tagged
// "-", untagged ones and "models" (see overlayModels) are not settings here.
func tagged(t reflect.Type) map[string]int {
	fields := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && !(t == configType && name == "models") {
			fields[name] = i
		}
	}
	return fields
}

var configType = reflect.TypeFor[Config]()

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// kindName names the JSON a Go kind wants, for errors.
func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Float32, reflect.Float64:
		return "a number"
	default:
		return "an integer"
	}
}

// fieldError is an error at a dotted path of a profile.
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string { return e.path + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

func wrapField(key string, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return &fieldError{key + "." + fe.path, fe.err}
	}
	return &fieldError{key, err}
}

func isNull(r json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(r), []byte("null")) }

// typeErr rewords encoding/json's type errors for people.
func typeErr(want string, r json.RawMessage) error {
	return fmt.Errorf("want %s, got %s", want, bytes.TrimSpace(r))
}

// duration is a profile's duration: a string such as "250ms" or "1.5s", or
// the number 0.
type duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *duration) UnmarshalJSON(r []byte) error {
	var s string
	if err := json.Unmarshal(r, &s); err != nil {
		var n float64
		if json.Unmarshal(r, &n) == nil && n == 0 {
			*d = 0
			return nil
		}
		return typeErr(`a duration string such as "250ms" or "1.5s"`, r)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as \"250ms\" or \"1.5s\": %w", err)
	}
	*d = duration(v)
	return nil
}

// hasDist reports whether a settings object names its "dist": then it
// replaces the distribution whole instead of changing some of its parameters.
func hasDist(r json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(r, &m) != nil {
		return false
	}
	_, ok := m["dist"]
	return ok
}

func (j *Jitter) decodeProfile(r json.RawMessage) error {
	if hasDist(r) {
		*j = Jitter{}
	}
	return decodeObject(r, reflect.ValueOf(j).Elem())
}

// decodeProfile decodes a count: a number (fixed) or a distribution object.
func (c *Count) decodeProfile(r json.RawMessage) error {
	var n int
	if json.Unmarshal(r, &n) == nil {
		*c = FixedCount(n)
		return nil
	}
	if hasDist(r) {
		*c = Count{}
	}
	if err := decodeObject(r, reflect.ValueOf(c).Elem()); err != nil {
		return err
	}
	if c.Dist == "" {
		return errors.New(`want an integer or an object with "dist" (fixed, uniform, lognormal or normal)`)
	}
	return nil
}

// decodeProfile decodes tokens per event: a number or {"min": a, "max": b}.
func (t *TokensPerEvent) decodeProfile(r json.RawMessage) error {
	var n int
	if json.Unmarshal(r, &n) == nil {
		*t = TokensPerEvent{Min: n, Max: n}
		return nil
	}
	return decodeObject(r, reflect.ValueOf(t).Elem())
}

// Profile is c as a JSON profile that ParseProfile reads back to c over any
// base: every setting written (durations as strings), so that another process
// (calibrate's child mock) serves exactly c. Log is not a setting.
func (c Config) Profile() ([]byte, error) {
	return json.Marshal(profileValue(reflect.ValueOf(c)))
}

// profileValue is v in the profile's form: a zero value as null (which
// resets the setting), a struct as an object of its json names, a duration
// as a string, the rest as encoding/json writes it.
func profileValue(v reflect.Value) any {
	if v.IsZero() {
		return nil
	}
	if v.Type() == reflect.TypeFor[time.Duration]() {
		return time.Duration(v.Int()).String()
	}
	switch v.Kind() {
	case reflect.Struct:
		out := make(map[string]any, v.NumField())
		for i := range v.NumField() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				out[name] = profileValue(v.Field(i))
			}
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = profileValue(it.Value())
		}
		return out
	}
	return v.Interface()
}
