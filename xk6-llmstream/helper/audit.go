package helper

import (
	"context"
	"fmt"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

// TokenAuditOptions ask the helper to count a request's streamed text with a
// tokenizer, to compare with the server's usage report (the Client's
// tokenAudit option; off when absent).
type TokenAuditOptions struct {
	// Tokenizer is a built-in encoding name (cl100k_base, o200k_base, ...) or
	// the path of a Hugging Face tokenizer.json on the helper's machine.
	Tokenizer string `json:"tokenizer"`
	// Tolerance is the share of the count by which usage may differ before
	// the request is a mismatch; absent: metrics.DefaultAuditTolerance.
	Tolerance *float64 `json:"tolerance,omitempty"`
}

// The audit's bounds: text longer than maxAuditBytes (answer + reasoning) is
// not counted, and counting stops after auditTimeout; the record then says so
// (TokenAudit.Error) and the request is not judged.
const (
	maxAuditBytes = 1 << 20
	auditTimeout  = 2 * time.Second
)

// auditor counts one request's text.
type auditor struct {
	tok       workload.Tokenizer
	name      string
	tolerance float64
}

// auditor validates the options and loads the tokenizer (once per process).
func (o *TokenAuditOptions) auditor() (*auditor, *requestError) {
	if o == nil {
		return nil, nil
	}
	if o.Tokenizer == "" {
		return nil, badRequest(`"token_audit.tokenizer" is empty: name a built-in encoding (%v) or a tokenizer.json path`, workload.BuiltinEncodings())
	}
	tol := metrics.DefaultAuditTolerance
	if o.Tolerance != nil {
		tol = *o.Tolerance
		if !(tol >= 0 && tol <= 1) {
			return nil, badRequest(`"token_audit.tolerance" must be between 0 and 1, got %v`, tol)
		}
	}
	tok, err := workload.LoadTokenizer(o.Tokenizer)
	if err != nil {
		return nil, badRequest(`"token_audit.tokenizer": %v`, err)
	}
	return &auditor{tok: tok, name: o.Tokenizer, tolerance: tol}, nil
}

// audit counts the engine's text of a request into its record. Only a
// successful request with a usage report is counted: there is nothing to
// compare otherwise.
func (a *auditor) audit(ctx context.Context, raw *stream.Record, rec *records.Record) {
	ta := &records.TokenAudit{Tokenizer: a.name, Tolerance: a.tolerance}
	rec.TokenAudit = ta
	switch n := len(raw.Text) + len(raw.Reasoning); {
	case !rec.OK():
		ta.Error = "the request failed"
	case rec.TokenSource != string(stream.TokensFromUsage):
		ta.Error = "the server reported no usage"
	case raw.ToolCalls > 0:
		ta.Error = "tool-call arguments are not kept as text; not counted"
	case n > maxAuditBytes:
		ta.Error = fmt.Sprintf("the text has %d bytes, over the audit's limit of %d", n, maxAuditBytes)
	default:
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditTimeout)
		defer cancel()
		total := 0
		for _, s := range []string{raw.Text, raw.Reasoning} {
			if s == "" {
				continue
			}
			c, err := workload.Count(ctx, a.tok, s)
			if err != nil {
				ta.Error = "counting: " + err.Error()
				return
			}
			total += c
		}
		ta.Counted = total
	}
}
