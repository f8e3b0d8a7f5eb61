package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/llmstream/xk6-llmstream/analyze/history"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// historyAppendFlags are summary's flags that append the run to a history.
type historyAppendFlags struct {
	file, label string
}

func (h *historyAppendFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.file, "history", "", "append this run's record (percentiles with intervals, rates, per --by group) to this JSONL history `file`")
	fs.StringVar(&h.label, "label", "", "the run's `label` in the history: a release, model version or commit (with --history)")
}

// append appends the summary's record when --history is given.
func (h *historyAppendFlags) append(d *rundata.Data, rep *result.Summary, stderr io.Writer) error {
	if h.file == "" {
		if h.label != "" {
			return usagef("--label names a run in a history: add --history FILE")
		}
		return nil
	}
	rec, err := history.FromSummary(rep, h.label, d.Reader.Start(), d.Last())
	if err != nil {
		return rundata.Errorf("--history %s: %w", h.file, err)
	}
	note, err := history.Append(h.file, rec)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintf(stderr, "analyze: warning: %s: %s\n", h.file, note)
	}
	return nil
}
