package metrics

import (
	"fmt"
	"math"
)

// The goodput rule: whether one request met a service-level objective. It is
// the only copy: the helper applies it for a Client's slo (llm_slo_met),
// analyze for --slo and the sweep for its SLO, each to the request's samples
// as FromRecord makes them (docs/metrics.md#goodput).
//
// A request meets an SLO when it succeeded and every limit holds for every
// one of its samples of the limit's metric. A sample that a request cannot
// have does not fail it:
//
//   - llm_tpot: a request with fewer than 2 output tokens has no TPOT; it
//     meets a TPOT limit (as vLLM's goodput, which counts its TPOT as 0).
//   - llm_itl_max: fewer than 2 text events, no gap; it meets the limit.
//   - llm_itl: with no llm_itl_max either (no gap at all) it meets the
//     limit; with one but no llm_itl samples (itl: 'off', 'records' or a
//     fraction that kept none) the limit cannot be judged: it fails.
//   - llm_ttft_answer: a request without a reasoning phase answers with its
//     first text, so its llm_ttft is judged.
//
// Any other missing sample fails the request: what was not measured did not
// meet the limit. A limit on a Rate holds when the request's sample is on its
// good side (0 under an upper limit, non-zero over a lower one).

// Limit is one per-request limit: every sample of Metric satisfies
// (sample Op Value).
type Limit struct {
	Metric string  `json:"metric"`
	Op     string  `json:"op"` // <, <=, >, >=, ==, !=
	Value  float64 `json:"value"`
	// Type is the metric's k6 type; "" is the builtin's, else a Trend.
	Type Type `json:"type,omitempty"`
}

// SLO is a set of per-request limits.
type SLO struct {
	Limits []Limit `json:"limits"`
	// Deadline, when set, is a per-token deadline every token must meet
	// (deadline.go; added in this version, optional).
	Deadline *Deadline `json:"deadline,omitempty"`
}

// Validate says what is wrong with the SLO's limits, naming the limit.
func (s *SLO) Validate() error {
	if s == nil || len(s.Limits) == 0 && s.Deadline == nil {
		return fmt.Errorf("slo: no limits")
	}
	if s.Deadline != nil {
		if err := s.Deadline.Validate(); err != nil {
			return err
		}
	}
	for _, l := range s.Limits {
		switch l.Op {
		case "<", "<=", ">", ">=", "==", "!=":
		default:
			return fmt.Errorf("slo: limit on %s: unknown operator %q (use <, <=, >, >=, == or !=)", l.Metric, l.Op)
		}
		if l.Metric == "" {
			return fmt.Errorf("slo: a limit has no metric")
		}
		if math.IsNaN(l.Value) || math.IsInf(l.Value, 0) {
			return fmt.Errorf("slo: limit on %s: value must be a finite number", l.Metric)
		}
	}
	return nil
}

// Span is the smallest and largest of a request's samples of one metric; N
// is how many (0: none).
type Span struct {
	Lo, Hi float64
	N      int
}

// add widens the span by v.
func (s *Span) add(v float64) {
	if s.N == 0 || v < s.Lo {
		s.Lo = v
	}
	if s.N == 0 || v > s.Hi {
		s.Hi = v
	}
	s.N++
}

// Outcome is what the rule reads of one request.
type Outcome struct {
	Failed       bool
	OutputTokens float64
	// Spans are the request's samples each limit applies to, by limit.
	Spans []Span
	// TTFT and ITLMax are its llm_ttft and llm_itl_max samples.
	TTFT, ITLMax Span
	// DeadlineMet is its llm_deadline_met samples.
	DeadlineMet Span
}

// OutcomeOf reads a request's outcome from its samples.
func OutcomeOf(samples []Series, slo *SLO) Outcome {
	o := Outcome{Spans: make([]Span, len(slo.Limits))}
	for _, s := range samples {
		switch s.Metric {
		case RequestsFailed:
			for _, v := range s.Values {
				o.Failed = o.Failed || v != 0
			}
		case OutputTokens:
			for _, v := range s.Values {
				o.OutputTokens += v
			}
		case TTFT:
			for _, v := range s.Values {
				o.TTFT.add(v)
			}
		case ITLMax:
			for _, v := range s.Values {
				o.ITLMax.add(v)
			}
		case DeadlineMet:
			for _, v := range s.Values {
				o.DeadlineMet.add(v)
			}
		}
		for i, l := range slo.Limits {
			if l.Metric == s.Metric {
				for _, v := range s.Values {
					o.Spans[i].add(v)
				}
			}
		}
	}
	return o
}

// Met applies the rule to one request.
func (s *SLO) Met(o Outcome) bool {
	if o.Failed {
		return false
	}
	if s.Deadline != nil && (o.DeadlineMet.N == 0 || o.DeadlineMet.Lo == 0) {
		return false
	}
	for i, l := range s.Limits {
		var sp Span
		if i < len(o.Spans) {
			sp = o.Spans[i]
		}
		if sp.N == 0 {
			switch l.Metric {
			case TPOT:
				if o.OutputTokens < 2 {
					continue
				}
				return false
			case ITLMax:
				continue
			case ITL:
				if o.ITLMax.N == 0 {
					continue
				}
				return false
			case TTFTAnswer:
				sp = o.TTFT
				if sp.N == 0 {
					return false
				}
			default:
				return false
			}
		}
		if l.typ() == Rate {
			upper := l.Op == "<" || l.Op == "<="
			if upper && sp.Hi != 0 || !upper && sp.Lo == 0 {
				return false
			}
			continue
		}
		if !l.holds(sp.Lo) || !l.holds(sp.Hi) {
			return false
		}
	}
	return true
}

func (l Limit) typ() Type {
	if l.Type != "" {
		return l.Type
	}
	if m, ok := Lookup(l.Metric); ok {
		return m.Type
	}
	return Trend
}

// holds applies the limit's operator to one value.
func (l Limit) holds(v float64) bool { return Compare(v, l.Op, l.Value) }

// Compare applies a k6 threshold operator (<, <=, >, >=, ==, ===, !=) to a
// value and a limit: the one comparison of the module's limits and of
// analyze's checks; an unknown operator holds for nothing.
func Compare(v float64, op string, limit float64) bool {
	switch op {
	case "<":
		return v < limit
	case "<=":
		return v <= limit
	case ">":
		return v > limit
	case ">=":
		return v >= limit
	case "==", "===":
		return v == limit
	case "!=":
		return v != limit
	}
	return false
}
