package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/attribution"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/model"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/records"
)

const tailExamples = `  analyze tail records.jsonl.gz
  analyze tail --tail p95 --format markdown records.jsonl
  analyze tail --format json -o tail.json shard1.jsonl.gz shard2.jsonl.gz
`

func runTail(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("tail", "tail [flags] RECORDS...", tailExamples, stderr)
	var (
		out  outputFlags
		tail string
		o    = attribution.DefaultOptions()
	)
	out.register(fs, output.Text, output.Markdown, output.JSON)
	fs.StringVar(&tail, "tail", "p99", "the `percentile` of TTFT above which a request is in the tail (p99, p95, 99.9)")
	fs.Float64Var(&o.Confidence, "confidence", o.Confidence, "confidence level of the intervals, between 0 and 1")
	fs.Float64Var(&o.MinEffect, "min-effect", o.MinEffect, "smallest effect (Cliff's δ or concentration, 0..1) named as setting the tail apart")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := out.validate(); err != nil {
		return err
	}
	if o.Tail, err = parseTail(tail); err != nil {
		return err
	}
	if c := o.Confidence; !(c > 0 && c < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	if len(paths) == 0 {
		return usagef("tail: no input: give the helper's records files (--records FILE)")
	}
	reqs, err := readTailRequests(paths, stderr)
	if err != nil {
		return err
	}
	res, err := attribution.Analyze(reqs, o)
	if err != nil {
		return model.Errorf("%s: %v", strings.Join(paths, ", "), err)
	}
	return out.write(stdout, func(w io.Writer) error {
		switch out.format {
		case output.Markdown:
			return res.WriteMarkdown(w)
		case output.JSON:
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		return res.WriteText(w)
	})
}

// parseTail reads p99, p(99), 99.
func parseTail(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "p("), "p"), ")")
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0 && v < 100) {
		return 0, usagef("--tail %q: want a percentile between 0 and 100, e.g. p99 or p95", s)
	}
	return v, nil
}

// readTailRequests reads the requests with stages from records files; a k6
// JSON file is refused (its samples carry no per-request stages).
func readTailRequests(paths []string, stderr io.Writer) ([]attribution.Request, error) {
	var reqs []attribution.Request
	for _, path := range paths {
		if !model.RecordsFile(path) {
			return nil, model.Errorf("%s: not a records file: analyze tail reads the helper's per-request records (--records FILE, docs/records.md), whose stages k6's JSON output does not carry per request", path)
		}
		rc, err := k6json.Open(path, nil)
		if err != nil {
			return nil, model.Errorf("%s: %v", path, err)
		}
		var skipped int
		fst, err := records.Scan(rc, func(r *records.Record) error {
			if q, ok := attribution.FromRecord(r); ok {
				reqs = append(reqs, q)
			} else {
				skipped++
			}
			return nil
		})
		rc.Close()
		if err != nil {
			return nil, model.Errorf("%s: %v", path, err)
		}
		if fst.Damage != "" {
			fmt.Fprintf(stderr, "analyze: warning: %s: %s\n", path, fst.Damage)
		}
		if skipped > 0 {
			fmt.Fprintf(stderr, "analyze: %s: %d record(s) without a TTFT (failed, warm-up or unanswered) left out of the attribution\n", path, skipped)
		}
	}
	return reqs, nil
}
