package main

import (
	"flag"
	"io"
	"slices"
	"strings"

	"github.com/llmstream/xk6-llmstream/model"
	"github.com/llmstream/xk6-llmstream/result"
)

// inputFlags are the flags every subcommand shares to say what to read and what
// to keep of it. register adds them to a flag set; selection turns them into a
// model.Selection.
type inputFlags struct {
	metrics  listFlag
	where    repeatFlag
	by       listFlag
	from, to durationFlag
	lenient  bool
	// metadata keeps the samples' metadata, for the request join.
	metadata bool
	labels   listFlag
}

func (f *inputFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.metrics, "metric", "`metric` to read (repeatable or comma-separated; default every llm_* metric present); any k6 Trend, Rate, Counter or Gauge")
	fs.Var(&f.where, "where", "keep only samples with this tag value, `key=value` (repeatable: all must hold; key= matches an empty or missing tag)")
	fs.Var(&f.by, "by", "group by these `tags` (comma-separated); the name 'file' groups by input file")
	fs.Var(&f.from, "from", "drop samples earlier than this `duration` after each input's first sample (warm-up), e.g. 30s")
	fs.Var(&f.to, "to", "drop samples this `duration` or later after each input's first sample, e.g. 5m")
	fs.BoolVar(&f.lenient, "lenient", false, "skip corrupt lines (counted and reported) instead of failing")
	fs.Var(&f.labels, "labels", "`names` for the input files, comma-separated, in order (default: the paths)")
}

// selection validates the flags.
func (f *inputFlags) selection() (model.Selection, error) {
	s := model.Selection{Metrics: slices.Clone(f.metrics), From: f.from.d, HasFrom: f.from.set, To: f.to.d, HasTo: f.to.set}
	for _, m := range s.Metrics {
		if strings.ContainsAny(m, "{}: ") {
			return s, usagef("--metric %q: want a metric name (filter with --where key=value)", m)
		}
	}
	for _, w := range f.where {
		k, v, ok := strings.Cut(w, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return s, usagef("--where %q: want key=value", w)
		}
		s.Where = append(s.Where, model.Where{Key: strings.TrimSpace(k), Value: v})
	}
	seen := map[string]bool{}
	for _, b := range f.by {
		if seen[b] {
			return s, usagef("--by %q: %s given twice", f.by.String(), b)
		}
		seen[b] = true
		s.By = append(s.By, b)
	}
	if s.HasFrom && s.HasTo && s.To <= s.From {
		return s, usagef("--to %s is not after --from %s", s.To, s.From)
	}
	return s, nil
}

// open validates the selection flags and the inputs, lets adjust change the
// selection (e.g. to read a metric in addition), and returns a reader over
// the inputs.
func (f *inputFlags) open(paths []string, stdin io.Reader, stderr io.Writer, adjust func(*model.Selection)) (*model.Reader, error) {
	sel, err := f.selection()
	if err != nil {
		return nil, err
	}
	ins, err := inputsFrom(paths, f.labels)
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		adjust(&sel)
	}
	return model.NewReader(sel, ins, f.options(stdin, stderr)), nil
}

func (f *inputFlags) options(stdin io.Reader, stderr io.Writer) model.Options {
	return model.Options{Lenient: f.lenient, Stdin: stdin, Warn: stderr, Metadata: f.metadata}
}

// inputsFrom pairs the positional arguments with their labels.
func inputsFrom(paths []string, labels []string) ([]model.Input, error) {
	if len(paths) == 0 {
		return nil, usagef("no input: give one or more k6 JSON files (--out json=FILE), or - for stdin")
	}
	if len(labels) > 0 && len(labels) != len(paths) {
		return nil, usagef("--labels has %d names for %d inputs", len(labels), len(paths))
	}
	if countStdin(paths) > 1 {
		return nil, usagef("stdin (-) can be read only once")
	}
	ins := make([]model.Input, len(paths))
	seen := map[string]bool{}
	for i, p := range paths {
		ins[i] = model.Input{Path: p, Label: p}
		if len(labels) > 0 {
			ins[i].Label = labels[i]
		}
		if seen[ins[i].Label] {
			return nil, usagef("two inputs are labelled %q (use --labels)", ins[i].Label)
		}
		seen[ins[i].Label] = true
	}
	return ins, nil
}

func countStdin(paths []string) int {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	return n
}

// alsoFailed reads the failure rate besides the metrics asked for: a summary
// and a report warn when it is high.
func alsoFailed(s *model.Selection) {
	s.Also = []string{result.FailedMetric, result.ClientLagMetric, result.ZeroGapsMetric}
}
