package tail

import (
	"errors"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/input"
	"io"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Read reads the requests with stages from the helper's records files
// (gzipped or not): several files are one population. A file that is not a
// records file (k6's JSON output: its samples carry no per-request stages)
// is refused, and every error names its file (a model.InputError). A file
// cut short is read up to the damage; that, and the records left out (no
// TTFT: failed, warm-up or unanswered), are said on warn.
func Read(paths []string, warn io.Writer) ([]Request, error) {
	return ReadWith(paths, ReadOptions{}, warn)
}

// ReadOptions change how ReadWith reads.
type ReadOptions struct {
	// Lenient skips bad lines (records.ScanOptions.Lenient); their numbers
	// are said on warn. Without it a bad line is an error naming its file
	// and line.
	Lenient bool
}

// ReadWith is Read with options.
func ReadWith(paths []string, o ReadOptions, warn io.Writer) ([]Request, error) {
	var reqs []Request
	for _, path := range paths {
		var err error
		if reqs, err = readFile(path, o, reqs, warn); err != nil {
			return nil, err
		}
	}
	return reqs, nil
}

// readFile appends the requests of one records file to reqs.
func readFile(path string, o ReadOptions, reqs []Request, warn io.Writer) ([]Request, error) {
	if !rundata.RecordsFile(path) {
		return nil, rundata.Errorf("%s: not a records file: the tail's attribution reads the helper's per-request records (--records FILE, docs/records.md), whose stages k6's JSON output does not carry per request", path)
	}
	rc, err := input.Open(path, nil)
	if err != nil {
		return nil, rundata.Errorf("%s: %v", path, err)
	}
	defer rc.Close()
	var skipped int
	fst, err := records.ScanWith(rc, records.ScanOptions{Lenient: o.Lenient}, func(r *records.Record) error {
		if q, ok := FromRecord(r); ok {
			reqs = append(reqs, q)
		} else {
			skipped++
		}
		return nil
	})
	if le := (*records.LineError)(nil); errors.As(err, &le) {
		return nil, rundata.Errorf("%s: %v (use --lenient to skip bad lines)", path, err)
	}
	if err != nil {
		return nil, rundata.Errorf("%s: %v", path, err)
	}
	if note := fst.SkippedNote(); note != "" {
		fmt.Fprintf(warn, "analyze: warning: %s: %s\n", path, note)
	}
	if fst.Damage != "" {
		fmt.Fprintf(warn, "analyze: warning: %s: %s\n", path, fst.Damage)
	}
	if skipped > 0 {
		fmt.Fprintf(warn, "analyze: %s: %d record(s) without a TTFT (failed, warm-up or unanswered) left out of the attribution\n", path, skipped)
	}
	return reqs, nil
}
