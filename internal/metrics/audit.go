package metrics

import (
	"math"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// DefaultAuditTolerance is the token audit's default tolerance: the share of
// the tokenizer's count by which the server's usage may differ.
const DefaultAuditTolerance = 0.05

// TokenMismatch is the one rule of the token audit: whether a request's
// server-reported output tokens (usage) differ from the tokenizer's count of
// its streamed text by more than the tolerance's share of that count, and by
// more than one token (a server may count an end-of-sequence token it does not
// stream). ok is false when the request cannot be judged: it failed, it has
// no audit, the audit could not count (Error), or the server reported no
// usage.
func TokenMismatch(rec *records.Record) (mismatch, ok bool) {
	a := rec.TokenAudit
	if a == nil || a.Error != "" || !rec.OK() || rec.TokenSource != "usage" {
		return false, false
	}
	diff := rec.OutputTokens - a.Counted
	if diff < 0 {
		diff = -diff
	}
	allowed := math.Max(1, a.Tolerance*float64(a.Counted))
	return float64(diff) > allowed, true
}
