package k6json

import (
	"bytes"
	"fmt"
)

// SummaryFileError is an input that is a k6 end-of-test summary — the JSON
// of `k6 run --summary-export FILE` or of a handleSummary function — rather
// than the samples k6 writes with --out json. A summary holds aggregates
// only, so no percentile, interval or check can be computed from it.
type SummaryFileError struct {
	Input string
}

func (e *SummaryFileError) Error() string {
	return fmt.Sprintf("%s is a k6 end-of-test summary (the JSON of --summary-export or handleSummary), "+
		"which holds aggregates, not samples: run k6 with `k6 run --out json=FILE` (or json=FILE.gz) and pass that FILE", e.Input)
}

// summaryHeadBytes is how much of an input's start looksLikeSummary reads.
const summaryHeadBytes = 1 << 16

// looksLikeSummary reports whether the start of an input is a k6 summary:
// a JSON object (pretty-printed or on one line) with k6's "root_group" key
// and none of the "type" keys every line of k6's sample output has.
func looksLikeSummary(head []byte) bool {
	head = head[:min(len(head), summaryHeadBytes)]
	trim := bytes.TrimLeft(head, " \t\r\n")
	if len(trim) == 0 || trim[0] != '{' {
		return false
	}
	if !bytes.Contains(head, []byte(`"root_group"`)) {
		return false
	}
	first, _, _ := bytes.Cut(trim, []byte("\n"))
	return !bytes.Contains(first, []byte(`"type":"Point"`)) && !bytes.Contains(first, []byte(`"type":"Metric"`))
}

// notSamples is the error for an input whose start says it is not k6's
// sample output, once a line of it failed or held no sample; nil when it
// may still be sample output.
func (sc *scan) notSamples() error {
	if sc.summary && sc.st.Points == 0 && sc.st.Decls == 0 {
		return &SummaryFileError{Input: sc.st.Input}
	}
	return nil
}
