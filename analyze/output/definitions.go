package output

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/definitions"
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// Extras are the summary's sections computed from records files beside the
// summary: every tool's definitions (--definitions) and the token audit.
type Extras struct {
	Definitions *definitions.Report `json:"definitions,omitempty"`
	TokenAudit  *definitions.Audit  `json:"token_audit,omitempty"`
}

func (x *Extras) empty() bool { return x == nil || (x.Definitions == nil && x.TokenAudit == nil) }

// WriteSummaryExtras writes a summary followed by its extra sections (as
// WriteSummary when there are none): in JSON the sections are fields of the
// summary's object.
func WriteSummaryExtras(w io.Writer, format string, s *result.Summary, x *Extras) error {
	if x.empty() {
		return WriteSummary(w, format, s)
	}
	switch format {
	case JSON:
		return writeJSON(w, struct {
			*result.Summary
			*Extras
		}{s, x})
	case Text, Markdown:
		if err := WriteSummary(w, format, s); err != nil {
			return err
		}
		ew := &errWriter{w: w}
		extraTables(ew, format == Markdown, x)
		return ew.err
	}
	return fmt.Errorf("output: a summary cannot be written as %q", format)
}

func extraTables(w *errWriter, md bool, x *Extras) {
	render := func(t *table) {
		if md {
			t.markdown(w)
		} else {
			t.text(w)
		}
		w.printf("\n")
	}
	heading := func(s string) string {
		if md {
			return "### " + s
		}
		return s
	}
	if d := x.Definitions; d != nil {
		title := fmt.Sprintf("definitions: every tool's TTFT, ITL, TPOT and e2e of the same %d requests (ms; records files; docs/definitions.md)", d.Requests)
		t := &table{title: heading(title), header: []string{"tool", "quantity", "n", "mean", "p50", "p90", "p99", "definition", "read from"},
			right: []bool{false, false, true, true, true, true, true, false, false}}
		for _, r := range d.Rows {
			t.add(string(r.Tool), r.Quantity, Number(float64(r.Count)), numOrDash(r.Mean), numOrDash(r.P50), numOrDash(r.P90), numOrDash(r.P99), r.Definition, r.Source)
		}
		render(t)
		notes := []string{fmt.Sprintf("text events per token: %s (below 1: multi-token chunks, where per-chunk and per-token ITL part ways)", numOrDash(d.TextEventsPerToken))}
		if d.FirstEventBeforeText > 0 {
			notes = append(notes, fmt.Sprintf("%d of %d requests had a first event without text (a role-only chunk): vLLM's TTFT starts there", d.FirstEventBeforeText, d.Requests))
		}
		if d.Skipped > 0 {
			notes = append(notes, fmt.Sprintf("%d failed or text-less requests are in no tool's latencies", d.Skipped))
		}
		for _, n := range notes {
			w.printf("%s\n", plainText(n))
		}
		w.printf("\n")
	}
	if a := x.TokenAudit; a != nil {
		t := &table{title: heading("token audit: server usage vs the tokenizer's count of the streamed text (" + strings.Join(a.Tokenizers, ", ") + ")"),
			header: []string{"audited", "judged", "mismatched", "usage tokens", "counted tokens", "usage / counted"},
			right:  []bool{true, true, true, true, true, true}}
		t.add(Number(float64(a.Audited)), Number(float64(a.Judged)), Number(float64(a.Mismatched)),
			Number(float64(a.Reported)), Number(float64(a.Counted)), numOrDash(a.Ratio))
		render(t)
		if a.Mismatched > 0 {
			w.printf("%s\n", plainText(fmt.Sprintf("MISMATCH: %s of judged requests report usage that differs from the tokenizer's count (llm_output_token_mismatch); first: %s",
				numfmt.Percent(float64(a.Mismatched)/float64(a.Judged)), strings.Join(a.MismatchedIDs, ", "))))
		}
		reasons := make([]string, 0, len(a.NotCounted))
		for r := range a.NotCounted {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		for _, r := range reasons {
			w.printf("%s\n", plainText(fmt.Sprintf("not judged: %d (%s)", a.NotCounted[r], r)))
		}
		w.printf("\n")
	}
}
