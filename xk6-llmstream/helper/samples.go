package helper

import (
	"github.com/llmstream/xk6-llmstream/internal/metrics"
)

// SampleOptions are a stream request's choices that shape its samples (the
// Client's options of the same names).
type SampleOptions struct {
	// ITL is "all" (the default), "off", "records" or "fraction".
	ITL string `json:"itl,omitempty"`
	// Fraction is the share of ITL samples kept with ITL "fraction", in (0, 1).
	Fraction float64 `json:"fraction,omitempty"`
	// Stages adds the stages of TTFT.
	Stages bool `json:"stages,omitempty"`
	// SLO adds llm_slo_met: whether the request met these limits.
	SLO *metrics.SLO `json:"slo,omitempty"`
	// Prices add llm_cost.
	Prices *metrics.Prices `json:"prices,omitempty"`
	// ExpectOutputTokens adds llm_output_length_mismatch when a successful
	// request's output token count differs from it.
	ExpectOutputTokens int `json:"expect_output_tokens,omitempty"`
	// Abandonment adds llm_requests_abandoned to every request (0 unless
	// abandoned): the Client abandons some of its requests.
	Abandonment bool `json:"abandonment,omitempty"`
}

// options validates the choices; nil is every default.
func (so *SampleOptions) options() (*metrics.Options, *requestError) {
	o := &metrics.Options{ITL: metrics.ITLAll}
	if so == nil {
		return o, nil
	}
	switch m := metrics.ITLMode(so.ITL); m {
	case "", metrics.ITLAll:
	case metrics.ITLOff, metrics.ITLRecords:
		o.ITL = m
	case metrics.ITLFraction:
		if !(so.Fraction > 0 && so.Fraction < 1) {
			return nil, badRequest(`"samples.fraction" must be between 0 and 1 (exclusive) with itl "fraction", got %v`, so.Fraction)
		}
		o.ITL, o.Fraction = m, so.Fraction
	default:
		return nil, badRequest(`unknown "samples.itl" %q: want all, off, records or fraction`, so.ITL)
	}
	o.Stages = so.Stages
	if so.SLO != nil {
		if err := so.SLO.Validate(); err != nil {
			return nil, badRequest(`"samples.slo": %v`, err)
		}
		o.SLO = so.SLO
	}
	if p := so.Prices; p != nil {
		if !(p.Input >= 0 && p.Output >= 0 && p.CachedInput >= 0) || p.Input > 1e12 || p.Output > 1e12 || p.CachedInput > 1e12 {
			return nil, badRequest(`"samples.prices" must be finite numbers ≥ 0 (currency units per million tokens)`)
		}
		o.Prices = p
	}
	if so.ExpectOutputTokens < 0 {
		return nil, badRequest(`"samples.expect_output_tokens" must be ≥ 0, got %d`, so.ExpectOutputTokens)
	}
	o.ExpectOutputTokens = so.ExpectOutputTokens
	o.Abandonment = so.Abandonment
	return o, nil
}
