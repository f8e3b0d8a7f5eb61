package main

import (
	"github.com/llmstream/xk6-llmstream/analyze/definitions"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
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
		if rundata.RecordsFile(p) {
			recs = append(recs, p)
		}
	}
	if len(recs) == 0 && tools != nil {
		return nil, nil, usagef("--definitions needs a records file among the inputs (the helper's --records): " +
			"the per-request event times, the first event and the token counts the tools' definitions use are not in k6's JSON output")
	}
	return tools, recs, nil
}
