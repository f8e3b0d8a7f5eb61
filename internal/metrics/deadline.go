package metrics

import (
	"fmt"
	"math"

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
