package metrics

import (
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// TestAbandonedSamplesAndGoodput: an abandoned request keeps what it
// received (TTFT, gaps, tokens), has no e2e or TPOT, is not failed, has
// llm_requests_abandoned 1, and is never good, even when every limit holds;
// with Options.Abandonment a request that ran to its end has
// llm_requests_abandoned 0 and is judged as before.
func TestAbandonedSamplesAndGoodput(t *testing.T) {
	ttft, tpot := int64(20e6), int64(5e6)
	slo := &SLO{Limits: []Limit{{Metric: TTFT, Op: "<", Value: 1000}}}
	done := &records.Record{StartNS: 1, E2ENS: 60e6, TTFTNS: &ttft, TPOTNS: &tpot, TextNS: []int64{20e6, 5e6, 5e6},
		OutputTokens: 3, TokenSource: "events"}
	left := *done
	left.TPOTNS, left.E2ENS = nil, 31e6
	left.Abandoned = &records.Abandoned{AtNS: 31e6, Tokens: 3}

	got := byMetric(FromRecord(&left, &Options{SLO: slo}))
	if got[TTFT] == nil || got[ITL] == nil || got[OutputTokens][0] != 3 {
		t.Errorf("abandoned: lost what it received: %v", got)
	}
	if got[E2E] != nil || got[TPOT] != nil || got[RequestsFailed][0] != 0 || got[RequestsAbandoned][0] != 1 {
		t.Errorf("abandoned: e2e %v tpot %v failed %v abandoned %v", got[E2E], got[TPOT], got[RequestsFailed], got[RequestsAbandoned])
	}
	if got[SLOMet][0] != 0 {
		t.Errorf("abandoned: llm_slo_met %v, want 0 (never good)", got[SLOMet])
	}
	got = byMetric(FromRecord(done, &Options{SLO: slo, Abandonment: true}))
	if got[RequestsAbandoned][0] != 0 || got[SLOMet][0] != 1 || got[E2E] == nil {
		t.Errorf("ran to its end: abandoned %v slo %v e2e %v", got[RequestsAbandoned], got[SLOMet], got[E2E])
	}
	if got := byMetric(FromRecord(done, &Options{SLO: slo})); got[RequestsAbandoned] != nil {
		t.Errorf("without abandonment: llm_requests_abandoned %v", got[RequestsAbandoned])
	}
	if slo.Met(Outcome{Abandoned: true, TTFT: Span{1, 1, 1}, Spans: []Span{{1, 1, 1}}}) {
		t.Error("SLO.Met: an abandoned request met the SLO")
	}
}
