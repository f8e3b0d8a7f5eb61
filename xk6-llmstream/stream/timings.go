package stream

import (
	"fmt"
	"math"
	"time"

	"github.com/valyala/fastjson"
)

// Server-reported timings (Record.ServerTimings): ollama puts its own
// durations, in nanoseconds, on its final chunk; llama.cpp's server puts a
// "timings" object, in milliseconds, on its final OpenAI chat chunk.

// getFloat returns the number field of o; ok is false when it is absent or null.
func getFloat(o *fastjson.Value, field string) (f float64, ok bool, err error) {
	v := o.Get(field)
	if isNull(v) {
		return 0, false, nil
	}
	if v.Type() != fastjson.TypeNumber {
		return 0, false, typeError(field, v, "a number")
	}
	f, _ = v.Float64()
	return f, true, nil
}

// durationField reads a number field as a duration of unit each; a negative
// or absurd value (more than a day) is an error.
func durationField(o *fastjson.Value, field string, unit time.Duration) (time.Duration, bool, error) {
	f, ok, err := getFloat(o, field)
	if err != nil || !ok {
		return 0, false, err
	}
	d := f * float64(unit)
	if d < 0 || d > float64(24*time.Hour) || math.IsNaN(d) {
		return 0, false, fmt.Errorf("field %q is %v, want a duration between 0 and a day", field, f)
	}
	return time.Duration(d), true, nil
}

// timingField is one duration or count a server reports.
type timingField struct {
	name  string
	unit  time.Duration  // 0: a token count, into count
	dur   *time.Duration // with unit
	count *int           // without unit
}

// readTimings fills the fields found in o and reports whether any was there.
func readTimings(o *fastjson.Value, fields []timingField) (bool, error) {
	found := false
	for _, f := range fields {
		var ok bool
		var err error
		if f.unit != 0 {
			*f.dur, ok, err = durationField(o, f.name, f.unit)
		} else {
			*f.count, ok, err = getInt(o, f.name)
		}
		if err != nil {
			return false, err
		}
		found = found || ok
	}
	return found, nil
}

// llamaCppTimings reads llama.cpp server's "timings" (prompt_n, prompt_ms,
// predicted_n, predicted_ms; predicted_per_token_ms × predicted_n when
// predicted_ms is absent).
func llamaCppTimings(v *fastjson.Value, d *delta) error {
	t, err := getObject(v, "timings")
	if err != nil || t == nil {
		return err
	}
	st := &d.timings
	var perToken time.Duration
	ok, err := readTimings(t, []timingField{
		{name: "prompt_ms", unit: time.Millisecond, dur: &st.Prefill},
		{name: "predicted_ms", unit: time.Millisecond, dur: &st.Decode},
		{name: "predicted_per_token_ms", unit: time.Millisecond, dur: &perToken},
		{name: "prompt_n", count: &st.PromptTokens},
		{name: "predicted_n", count: &st.OutputTokens},
	})
	if st.Decode == 0 && perToken > 0 {
		st.Decode = perToken * time.Duration(st.OutputTokens)
	}
	d.hasTimings = ok
	return err
}

// ollamaTimings reads the durations (ns) and counts of ollama's final chunk.
func ollamaTimings(v *fastjson.Value, d *delta) error {
	st := &d.timings
	ok, err := readTimings(v, []timingField{
		{name: "prompt_eval_duration", unit: time.Nanosecond, dur: &st.Prefill},
		{name: "eval_duration", unit: time.Nanosecond, dur: &st.Decode},
		{name: "total_duration", unit: time.Nanosecond, dur: &st.Total},
		{name: "load_duration", unit: time.Nanosecond, dur: &st.Load},
		{name: "prompt_eval_count", count: &st.PromptTokens},
		{name: "eval_count", count: &st.OutputTokens},
	})
	d.hasTimings = ok
	return err
}
