package metrics

import (
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

func TestSLOMet(t *testing.T) {
	t.Parallel()
	limit := func(m string, v float64) *SLO { return &SLO{Limits: []Limit{{Metric: m, Op: "<=", Value: v}}} }
	met := func(rec func() []Series, slo *SLO) bool { return slo.Met(OutcomeOf(rec(), slo)) }
	ok := func() []Series { return FromRecord(okRecord(), nil) }
	oneToken := func() []Series {
		r := okRecord()
		r.OutputTokens, r.TextNS, r.TPOTNS = 1, r.TextNS[:1], nil
		return FromRecord(r, nil)
	}
	failed := func() []Series {
		r := okRecord()
		r.Error = &records.Error{Kind: "http_5xx"}
		return FromRecord(r, nil)
	}
	itlOff := func() []Series { return FromRecord(okRecord(), &Options{ITL: ITLOff}) }
	for _, c := range []struct {
		name string
		rec  func() []Series
		slo  *SLO
		want bool
	}{
		{"ttft within", ok, limit(TTFT, 25), true},
		{"ttft over", ok, limit(TTFT, 20), false},
		{"failed", failed, limit(TTFT, 1e9), false},
		{"one token meets tpot", oneToken, limit(TPOT, 1), true},
		{"tpot over", ok, limit(TPOT, 7), false},
		{"one event meets maxGap", oneToken, limit(ITLMax, 1), true},
		{"stall fails maxGap", ok, limit(ITLMax, 10), false},
		{"every gap under itl limit", ok, limit(ITL, 12), true},
		{"itl not recorded fails closed", itlOff, limit(ITL, 1e9), false},
		{"no gap meets itl", oneToken, limit(ITL, 1), true},
		{"ttft_answer falls back to ttft", ok, limit(TTFTAnswer, 21), true},
		{"ttft_answer fallback over", ok, limit(TTFTAnswer, 20), false},
		{"missing other sample fails", ok, limit("llm_custom", 1e9), false},
		{"rate upper", ok, &SLO{Limits: []Limit{{Metric: RequestsFailed, Op: "<", Value: 0.01}}}, true},
	} {
		if got := met(c.rec, c.slo); got != c.want {
			t.Errorf("%s: met %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSLOValidate(t *testing.T) {
	t.Parallel()
	for _, bad := range []*SLO{nil, {}, {Limits: []Limit{{Metric: TTFT, Op: "=<", Value: 1}}}, {Limits: []Limit{{Op: "<", Value: 1}}}} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
	if err := (&SLO{Limits: []Limit{{Metric: TTFT, Op: "<=", Value: 1}}}).Validate(); err != nil {
		t.Error(err)
	}
}
