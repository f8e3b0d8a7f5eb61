package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// Deadline is a per-token service-level objective: token i (1-based, in
// arrival order) is due at d_i = TTFTMS + (i − 1) × PerTokenMS after the
// request's start. It is the one rule of llm_fluidity and llm_deadline_met
// (docs/deadlines.md):
//
//   - Deadline goodput (Wang et al., "Revisiting SLO and Goodput Metrics in
//     LLM Serving", arXiv 2410.14257): a request is good when every token
//     arrived by its d_i. The deadlines are fixed from the start, so a token
//     that comes early banks slack that a later, slow one may spend.
//   - Fluidity index (Agrawal et al., "Etalon: Holistic Performance
//     Evaluation Framework for LLM Inference Systems", arXiv 2407.07000):
//     the fraction of a request's tokens that met their deadline, where the
//     next deadline is one per-token budget after the last one met (slack
//     carried) and, after a miss, one budget after the late token's arrival
//     (the schedule restarts from the stall instead of failing every later
//     token).
//
// A token's arrival is its text event's time; a k-token event (the record's
// text_tokens) delivers k tokens at once.
type Deadline struct {
	TTFTMS     float64 `json:"ttft_ms"`
	PerTokenMS float64 `json:"per_token_ms"`
}

// Validate says what is wrong with the deadline, naming the field.
func (d *Deadline) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"ttft_ms", d.TTFTMS}, {"per_token_ms", d.PerTokenMS}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v <= 0 {
			return fmt.Errorf("slo: deadline: %s must be a finite number of milliseconds > 0, got %v", f.name, f.v)
		}
	}
	return nil
}

// DeadlineResult is one request judged against a Deadline.
type DeadlineResult struct {
	Tokens   int     // the tokens judged
	Fluidity float64 // the fraction of deadlines met, Etalon's rule
	Met      bool    // every token by its d_i, arXiv 2410.14257's rule
}

// Judge applies the deadline to one request's token arrivals; ok is false
// when the request has no text (failed, or nothing streamed): it is judged by
// neither rule, and a deadline SLO counts it as not met.
func (d *Deadline) Judge(rec *records.Record) (r DeadlineResult, ok bool) {
	if !rec.OK() || len(rec.TextNS) == 0 {
		return r, false
	}
	perEvent := len(rec.TextTokens) == len(rec.TextNS)
	at := 0.0
	due := d.TTFTMS // Etalon's next deadline
	met := 0
	r.Met = true
	for i, g := range rec.TextNS {
		at += MS(g)
		k := 1
		if perEvent {
			k = max(rec.TextTokens[i], 1)
		}
		for range k {
			if at > d.TTFTMS+float64(r.Tokens)*d.PerTokenMS {
				r.Met = false
			}
			r.Tokens++
			if at <= due {
				met++
				due += d.PerTokenMS
			} else {
				due = at + d.PerTokenMS
			}
		}
	}
	r.Fluidity = float64(met) / float64(r.Tokens)
	return r, true
}

// DeadlinePrefix starts an --slo expression that sets the deadline (analyze
// and the sweep): "deadline.ttft=1s,deadline.perToken=50ms", the fields of
// the Client's slo.deadline.
const DeadlinePrefix = "deadline."

// ParseDeadline takes the deadline out of a list of --slo expressions: every
// expression that starts with DeadlinePrefix is a comma-separated list of
// deadline.ttft=DURATION and deadline.perToken=DURATION (a Go duration such
// as 1s or 50ms, or a number of milliseconds); rest are the other
// expressions, in order. d is nil when none sets it; when one does, both
// fields must be given (across expressions, each once).
func ParseDeadline(exprs []string) (d *Deadline, rest []string, err error) {
	var ttft, per *float64
	for _, e := range exprs {
		if !strings.HasPrefix(strings.TrimSpace(e), DeadlinePrefix) {
			rest = append(rest, e)
			continue
		}
		for _, item := range strings.Split(e, ",") {
			key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
			var dst **float64
			switch strings.TrimSpace(key) {
			case DeadlinePrefix + "ttft":
				dst = &ttft
			case DeadlinePrefix + "perToken":
				dst = &per
			default:
				return nil, nil, fmt.Errorf("--slo %q: unknown %q (want deadline.ttft=DURATION,deadline.perToken=DURATION, e.g. deadline.ttft=1s,deadline.perToken=50ms)", e, strings.TrimSpace(item))
			}
			if !ok {
				return nil, nil, fmt.Errorf("--slo %q: %s has no value (e.g. %s=1s)", e, key, key)
			}
			if *dst != nil {
				return nil, nil, fmt.Errorf("--slo %q: %s is given twice", e, key)
			}
			ms, err := durationMS(strings.TrimSpace(val))
			if err != nil || !(ms > 0) {
				return nil, nil, fmt.Errorf("--slo %q: %s=%q: want a duration > 0 such as 1s or 50ms (a bare number is milliseconds)", e, key, val)
			}
			*dst = &ms
		}
	}
	if ttft == nil && per == nil {
		return nil, rest, nil
	}
	if ttft == nil || per == nil {
		return nil, nil, fmt.Errorf("--slo: a deadline needs both deadline.ttft and deadline.perToken, e.g. --slo 'deadline.ttft=1s,deadline.perToken=50ms'")
	}
	d = &Deadline{TTFTMS: *ttft, PerTokenMS: *per}
	return d, rest, d.Validate()
}

// durationMS reads a Go duration, or a bare number of milliseconds.
func durationMS(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("not finite")
		}
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	return float64(d) / float64(time.Millisecond), nil
}

// String is the deadline as ParseDeadline reads it.
func (d *Deadline) String() string {
	return fmt.Sprintf("%sttft=%gms,%sperToken=%gms", DeadlinePrefix, d.TTFTMS, DeadlinePrefix, d.PerTokenMS)
}
