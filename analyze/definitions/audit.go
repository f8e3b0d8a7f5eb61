package definitions

import (
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
)

// Audit sums a run's token-count audits (records.TokenAudit).
type Audit struct {
	// Audited are the requests with an audit; Judged those metrics.TokenMismatch
	// could judge, Mismatched those it flagged.
	Audited    int `json:"audited"`
	Judged     int `json:"judged"`
	Mismatched int `json:"mismatched"`
	// NotCounted are the audited requests not judged, by reason.
	NotCounted map[string]int `json:"not_counted,omitempty"`
	// Reported and Counted are the judged requests' usage and tokenizer
	// totals; Ratio is Reported / Counted (1: the server counts as the
	// tokenizer does).
	Reported int64    `json:"reported_tokens"`
	Counted  int64    `json:"counted_tokens"`
	Ratio    *float64 `json:"ratio"`
	// Tokenizers are the tokenizers the audits counted with.
	Tokenizers []string `json:"tokenizers,omitempty"`
	// MismatchedIDs are the first mismatched requests' ids (at most 10).
	MismatchedIDs []string `json:"mismatched_ids,omitempty"`
}

const maxMismatchIDs = 10

func (c *Collector) addAudit(rec *records.Record) {
	a := rec.TokenAudit
	if a == nil {
		return
	}
	s := &c.audit
	s.Audited++
	found := false
	for _, t := range s.Tokenizers {
		found = found || t == a.Tokenizer
	}
	if !found {
		s.Tokenizers = append(s.Tokenizers, a.Tokenizer)
	}
	mismatch, ok := metrics.TokenMismatch(rec)
	if !ok {
		reason := a.Error
		switch {
		case reason != "":
		case !rec.OK():
			reason = "the request failed"
		default:
			reason = "the server reported no usage"
		}
		s.NotCounted[reason]++
		return
	}
	s.Judged++
	s.Reported += int64(rec.OutputTokens)
	s.Counted += int64(a.Counted)
	if mismatch {
		s.Mismatched++
		if len(s.MismatchedIDs) < maxMismatchIDs && rec.ID != "" {
			s.MismatchedIDs = append(s.MismatchedIDs, rec.ID)
		}
	}
}

// Audit is the run's token audit, nil when no record had one.
func (c *Collector) Audit() *Audit {
	if c.audit.Audited == 0 {
		return nil
	}
	a := c.audit
	if a.Counted > 0 {
		a.Ratio = ptr(float64(a.Reported) / float64(a.Counted))
	}
	if len(a.NotCounted) == 0 {
		a.NotCounted = nil
	}
	return &a
}
