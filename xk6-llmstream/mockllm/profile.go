package mockllm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// LoadProfile reads the JSON profile at path (format in docs/mock.md) over
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
// Errors name the field (as a dotted path) or the line and column.
//
// The "models" object overrides "default" per model: each model starts as a
// copy of the resulting default, then takes the fields it sets.
func ParseProfile(data []byte, base Config) (Config, error) {
	if err := checkSyntax(data); err != nil {
		return Config{}, err
	}
	cfg := base
	models := make(map[string]ModelConfig, len(base.Models))
	for k, v := range base.Models {
		models[k] = v
	}
	var rawModels map[string]json.RawMessage
	var modelOrder []string
	err := decodeObject(data, fields{
		"seed": func(r json.RawMessage) error {
			var s uint64
			err := json.Unmarshal(r, &s)
			cfg.Seed = s
			return err
		},
		"slots":           intField(&cfg.Slots),
		"slots_per_model": boolField(&cfg.SlotsPerModel),
		"queue_limit":     intField(&cfg.QueueLimit),
		"retry_after":     durationField(&cfg.RetryAfter),
		"api_key":         stringField(&cfg.APIKey),
		"default":         cfg.Default.decoder(),
		"models": func(r json.RawMessage) error {
			if isNull(r) {
				models = map[string]ModelConfig{}
				return nil
			}
			if err := json.Unmarshal(r, &rawModels); err != nil {
				return errors.New("want an object of model name → model settings")
			}
			for k := range rawModels {
				modelOrder = append(modelOrder, k)
			}
			sort.Strings(modelOrder)
			return nil
		},
	})
	if err != nil {
		return Config{}, err
	}
	for _, name := range modelOrder {
		if name == "" {
			return Config{}, errors.New("models: empty model name")
		}
		m, ok := models[name]
		if !ok {
			m = cfg.Default
		}
		if err := m.decoder()(rawModels[name]); err != nil {
			return Config{}, wrapField(fmt.Sprintf("models.%q", name), err)
		}
		models[name] = m
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

// fields maps the keys of a JSON object to their decoders.
type fields map[string]func(json.RawMessage) error

// decodeObject decodes a JSON object key by key, in sorted order; an unknown
// key is an error naming it.
func decodeObject(data []byte, fs fields) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return errors.New("want a JSON object")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := fs[k]
		if !ok {
			known := make([]string, 0, len(fs))
			for n := range fs {
				known = append(known, n)
			}
			sort.Strings(known)
			return fmt.Errorf("unknown field %q (known: %s)", k, strings.Join(known, ", "))
		}
		if err := f(m[k]); err != nil {
			return wrapField(k, err)
		}
	}
	return nil
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

// valueField decodes one JSON value into *p; null resets it to T's zero value.
// want names the expected kind in errors ("an integer", "a number", ...).
func valueField[T any](p *T, want string) func(json.RawMessage) error {
	return func(r json.RawMessage) error {
		if isNull(r) {
			var zero T
			*p = zero
			return nil
		}
		if err := json.Unmarshal(r, p); err != nil {
			return typeErr(want, r)
		}
		return nil
	}
}

func intField(p *int) func(json.RawMessage) error       { return valueField(p, "an integer") }
func floatField(p *float64) func(json.RawMessage) error { return valueField(p, "a number") }
func boolField(p *bool) func(json.RawMessage) error     { return valueField(p, "true or false") }
func stringField(p *string) func(json.RawMessage) error { return valueField(p, "a string") }

// durationField decodes a duration string such as "250ms" or "1.5s" (or the
// number 0).
func durationField(p *time.Duration) func(json.RawMessage) error {
	return func(r json.RawMessage) error {
		if isNull(r) {
			*p = 0
			return nil
		}
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			var n float64
			if json.Unmarshal(r, &n) == nil && n == 0 {
				*p = 0
				return nil
			}
			return typeErr(`a duration string such as "250ms" or "1.5s"`, r)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("want a duration such as \"250ms\" or \"1.5s\": %w", err)
		}
		*p = d
		return nil
	}
}

// decoder returns the decoder of a model settings object into m.
func (m *ModelConfig) decoder() func(json.RawMessage) error {
	return func(r json.RawMessage) error {
		if isNull(r) {
			*m = ModelConfig{}
			return nil
		}
		return decodeObject(r, fields{
			"prefill": object(&m.Prefill, func(p *Prefill) fields {
				return fields{
					"base":            durationField(&p.Base),
					"per_input_token": durationField(&p.PerInputToken),
					"jitter":          p.Jitter.decoder(),
					"max":             durationField(&p.Max),
				}
			}),
			"itl": object(&m.ITL, func(p *ITL) fields {
				return fields{
					"base":   durationField(&p.Base),
					"jitter": p.Jitter.decoder(),
					"max":    durationField(&p.Max),
				}
			}),
			"stall": object(&m.Stall, func(p *Stall) fields {
				return fields{
					"prob":     floatField(&p.Prob),
					"duration": durationField(&p.Duration),
					"jitter":   p.Jitter.decoder(),
				}
			}),
			"decode_slowdown":  floatField(&m.DecodeSlowdown),
			"output_tokens":    m.OutputTokens.decoder(),
			"reasoning_tokens": m.ReasoningTokens.decoder(),
			"tokens_per_event": m.TokensPerEvent.decoder(),
			"echo":             boolField(&m.Echo),
			"reasoning_field":  stringField(&m.ReasoningField),
			"faults": object(&m.Faults, func(f *Faults) fields {
				return fields{
					"http_429":     floatField(&f.HTTP429),
					"http_5xx":     floatField(&f.HTTP5xx),
					"status_5xx":   intField(&f.Status5xx),
					"disconnect":   floatField(&f.Disconnect),
					"malformed":    floatField(&f.Malformed),
					"error_event":  floatField(&f.ErrorEvent),
					"not_streamed": floatField(&f.NotStreamed),
				}
			}),
		})
	}
}

// object decodes a settings object into *p field by field (null resets *p).
func object[T any](p *T, fs func(*T) fields) func(json.RawMessage) error {
	return func(r json.RawMessage) error {
		if isNull(r) {
			var zero T
			*p = zero
			return nil
		}
		return decodeObject(r, fs(p))
	}
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

func (j *Jitter) decoder() func(json.RawMessage) error {
	dec := object(j, func(j *Jitter) fields {
		return fields{
			"dist": func(r json.RawMessage) error {
				var s string
				err := stringField(&s)(r)
				j.Dist = JitterDist(s)
				return err
			},
			"sigma":  floatField(&j.Sigma),
			"stddev": durationField(&j.Stddev),
			"spread": durationField(&j.Spread),
			"mean":   durationField(&j.Mean),
		}
	})
	return func(r json.RawMessage) error {
		if hasDist(r) {
			*j = Jitter{}
		}
		return dec(r)
	}
}

// decoder decodes a count: a number (fixed) or a distribution object.
func (c *Count) decoder() func(json.RawMessage) error {
	return func(r json.RawMessage) error {
		if isNull(r) {
			*c = Count{}
			return nil
		}
		var n int
		if json.Unmarshal(r, &n) == nil {
			*c = FixedCount(n)
			return nil
		}
		if hasDist(r) {
			*c = Count{}
		}
		err := object(c, func(c *Count) fields {
			return fields{
				"dist": func(r json.RawMessage) error {
					var s string
					err := stringField(&s)(r)
					c.Dist = CountDist(s)
					return err
				},
				"value":  intField(&c.Value),
				"min":    intField(&c.Min),
				"max":    intField(&c.Max),
				"median": floatField(&c.Median),
				"sigma":  floatField(&c.Sigma),
				"mean":   floatField(&c.Mean),
				"stddev": floatField(&c.Stddev),
			}
		})(r)
		if err != nil {
			return err
		}
		if c.Dist == "" {
			return errors.New(`want an integer or an object with "dist" (fixed, uniform, lognormal or normal)`)
		}
		return nil
	}
}

// decoder decodes tokens per event: a number or {"min": a, "max": b}.
func (t *TokensPerEvent) decoder() func(json.RawMessage) error {
	return func(r json.RawMessage) error {
		if isNull(r) {
			*t = TokensPerEvent{}
			return nil
		}
		var n int
		if json.Unmarshal(r, &n) == nil {
			*t = TokensPerEvent{Min: n, Max: n}
			return nil
		}
		return object(t, func(t *TokensPerEvent) fields {
			return fields{"min": intField(&t.Min), "max": intField(&t.Max)}
		})(r)
	}
}
