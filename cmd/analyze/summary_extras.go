package main

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/input"

	"github.com/llmstream/xk6-llmstream/analyze/definitions"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/model"
	"github.com/llmstream/xk6-llmstream/records"
)

// definitionsInputs validates --definitions (nil tools when absent) and
// finds the records files among the inputs.
func definitionsInputs(paths []string, list string) (tools []definitions.Tool, recs []string, err error) {
	if list != "" {
		if tools, err = definitions.Parse(list); err != nil {
			return nil, nil, usagef("--definitions: %v", err)
		}
	}
	for _, p := range paths {
		if model.RecordsFile(p) {
			recs = append(recs, p)
		}
	}
	if len(recs) == 0 && tools != nil {
		return nil, nil, usagef("--definitions needs a records file among the inputs (the helper's --records): " +
			"the per-request event times, the first event and the token counts the tools' definitions use are not in k6's JSON output")
	}
	return tools, recs, nil
}

// recordsExtras reads the records files for the summary's extra sections:
// every tool's definitions (when tools are named) and the token audit (when
// a record has one). They cover every recorded request of the records files:
// --where, --by, --from and --to do not apply. nil: no extra section.
func recordsExtras(recs []string, tools []definitions.Tool, lenient bool) (*output.Extras, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	c := definitions.New(tools)
	for _, p := range recs {
		if err := scanRecords(p, lenient, c.Add); err != nil {
			return nil, err
		}
	}
	x := &output.Extras{TokenAudit: c.Audit()}
	if tools != nil {
		x.Definitions = c.Report()
	}
	if x.Definitions == nil && x.TokenAudit == nil {
		return nil, nil
	}
	return x, nil
}

func scanRecords(path string, lenient bool, add func(*records.Record)) error {
	rc, err := input.Open(path, nil)
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := records.ScanWith(rc, records.ScanOptions{Lenient: lenient}, func(r *records.Record) error {
		add(r)
		return nil
	}); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
