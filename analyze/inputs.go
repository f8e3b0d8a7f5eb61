package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/k6json"
)

// inputFlags are the flags every subcommand shares to say what to read and what
// to keep of it. register adds them to a flag set; selection turns them into a
// selection.
type inputFlags struct {
	metrics  listFlag
	where    repeatFlag
	by       listFlag
	from, to durationFlag
	lenient  bool
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

// selection says which samples to keep and how to group them.
type selection struct {
	// metrics are the names asked for; empty means every llm_* metric present.
	metrics []string
	// also are metrics read in addition when present (e.g. llm_requests_failed
	// for the failure rate); they are not an error when absent.
	also   []string
	where  []whereClause
	by     []string // tag keys; byFile is the pseudo-tag "file"
	byFile bool
	from   durationFlag
	to     durationFlag
	// missingOK: a metric in metrics that is not in the inputs is not an error.
	missingOK bool
}

type whereClause struct{ key, value string }

// selection validates the flags.
func (f *inputFlags) selection() (selection, error) {
	s := selection{metrics: slices.Clone(f.metrics), from: f.from, to: f.to}
	for _, m := range s.metrics {
		if strings.ContainsAny(m, "{}: ") {
			return s, usagef("--metric %q: want a metric name (filter with --where key=value)", m)
		}
	}
	for _, w := range f.where {
		k, v, ok := strings.Cut(w, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return s, usagef("--where %q: want key=value", w)
		}
		s.where = append(s.where, whereClause{strings.TrimSpace(k), v})
	}
	seen := map[string]bool{}
	for _, b := range f.by {
		if seen[b] {
			return s, usagef("--by %q: %s given twice", f.by.String(), b)
		}
		seen[b] = true
		s.by = append(s.by, b)
		if b == "file" {
			s.byFile = true
		}
	}
	if s.from.set && s.to.set && s.to.d <= s.from.d {
		return s, usagef("--to %s is not after --from %s", s.to.d, s.from.d)
	}
	return s, nil
}

// open validates the selection flags and the inputs, and returns a reader
// over them.
func (f *inputFlags) open(paths []string, stdin io.Reader, stderr io.Writer) (*reader, error) {
	sel, err := f.selection()
	if err != nil {
		return nil, err
	}
	ins, err := inputsFrom(paths, f.labels)
	if err != nil {
		return nil, err
	}
	return newReader(sel, ins, f.lenient, stdin, stderr), nil
}

// String describes the selection for a report header.
func (s selection) String() string {
	var parts []string
	if len(s.metrics) > 0 {
		parts = append(parts, "metrics "+strings.Join(s.metrics, ","))
	}
	for _, w := range s.where {
		parts = append(parts, w.key+"="+w.value)
	}
	if len(s.by) > 0 {
		parts = append(parts, "by "+strings.Join(s.by, ","))
	}
	if s.from.set {
		parts = append(parts, "from "+s.from.d.String())
	}
	if s.to.set {
		parts = append(parts, "to "+s.to.d.String())
	}
	return strings.Join(parts, ", ")
}

// keeps reports whether points of the named metric are read.
func (s selection) keeps(name string) bool {
	if slices.Contains(s.also, name) {
		return true
	}
	if len(s.metrics) == 0 {
		return strings.HasPrefix(name, "llm_")
	}
	return slices.Contains(s.metrics, name)
}

func (s selection) matches(tags *k6json.TagSet) bool {
	for _, w := range s.where {
		v, _ := tags.Get(w.key)
		if v != w.value {
			return false
		}
	}
	return true
}

func (s selection) inWindow(elapsed time.Duration) bool {
	return (!s.from.set || elapsed >= s.from.d) && (!s.to.set || elapsed < s.to.d)
}

// input is one file to read.
type input struct {
	path  string
	label string
}

// inputsFrom pairs the positional arguments with their labels.
func inputsFrom(paths []string, labels []string) ([]input, error) {
	if len(paths) == 0 {
		return nil, usagef("no input: give one or more k6 JSON files (--out json=FILE), or - for stdin")
	}
	if len(labels) > 0 && len(labels) != len(paths) {
		return nil, usagef("--labels has %d names for %d inputs", len(labels), len(paths))
	}
	if countStdin(paths) > 1 {
		return nil, usagef("stdin (-) can be read only once")
	}
	ins := make([]input, len(paths))
	seen := map[string]bool{}
	for i, p := range paths {
		ins[i] = input{path: p, label: p}
		if len(labels) > 0 {
			ins[i].label = labels[i]
		}
		if seen[ins[i].label] {
			return nil, usagef("two inputs are labelled %q (use --labels)", ins[i].label)
		}
		seen[ins[i].label] = true
	}
	return ins, nil
}

// group is a set of samples reported together: its labels in --by order
// (the input label under the name "file").
type group struct {
	id     int
	labels []k6json.Tag
	key    string // "model=a,scenario=ramp", or "all" for the whole population
	file   int    // the input's index, which orders the "file" label
}

// reader streams the selected points of a list of inputs. It owns one
// k6json.Scanner, so tag sets are shared across the inputs.
type reader struct {
	sel     selection
	inputs  []input
	stdin   io.Reader
	stderr  io.Writer // warnings about the inputs
	lenient bool
	// keep, if set, replaces the selection's choice of metrics: it is asked
	// once per metric name, after that metric's declaration was read.
	keep func(name string) bool

	// Filled while reading:
	decls  map[string]*k6json.Metric // first declaration of each metric
	names  map[string]bool           // every metric name seen
	files  []k6json.FileStats
	groups []*group
	// groupOf[file][tagSetID] is the group of a tag set (-1: filtered out, 0:
	// not yet decided, g+1 otherwise).
	groupOf  [][]int32
	groupIdx map[string]int
}

func newReader(sel selection, ins []input, lenient bool, stdin io.Reader, stderr io.Writer) *reader {
	return &reader{sel: sel, inputs: ins, lenient: lenient, stdin: stdin, stderr: stderr,
		decls: map[string]*k6json.Metric{}, names: map[string]bool{}, groupIdx: map[string]int{}}
}

// each reads every input in order and calls fn with each selected point (in
// the selected metrics, passing --where and the time window) and its group.
// The point is reused by the scanner: copy what you keep. Warnings about damaged
// inputs and skipped lines go to stderr; a corrupt line is a usage error naming
// the file and line.
func (r *reader) each(fn func(file int, g *group, p *k6json.Point) error) error {
	file := 0
	sc := &k6json.Scanner{
		Keep: func(name string) bool {
			r.names[name] = true
			if r.keep != nil {
				return r.keep(name)
			}
			return r.sel.keeps(name)
		},
		Lenient: r.lenient,
		OnMetric: func(m *k6json.Metric) error {
			if _, ok := r.decls[m.Name]; !ok {
				r.decls[m.Name] = m
			}
			return nil
		},
		OnPoint: func(p *k6json.Point) error {
			if !r.sel.inWindow(p.Elapsed) {
				return nil
			}
			g := r.groupFor(file, p.Tags)
			if g == nil {
				return nil
			}
			return fn(file, g, p)
		},
	}
	r.groupOf = make([][]int32, len(r.inputs))
	for i, in := range r.inputs {
		file = i
		st, err := sc.ScanFile(in.path, r.stdin)
		r.files = append(r.files, st)
		if err != nil {
			var le *k6json.LineError
			if errors.As(err, &le) {
				return usageError{fmt.Errorf("%w (use --lenient to skip corrupt lines)", err)}
			}
			return usageError{err}
		}
		if st.Damage != "" {
			fmt.Fprintf(r.stderr, "analyze: warning: %s: %s; read %d lines, %d samples (%d of the selected metrics) before the damage\n",
				in.path, st.Damage, st.Lines, st.Points, st.Kept)
		}
		if st.Skipped > 0 {
			fmt.Fprintf(r.stderr, "analyze: warning: %s: skipped %d corrupt line(s) (lines %s)\n",
				in.path, st.Skipped, lineList(st.SkippedLines, st.Skipped))
		}
		if st.Points == 0 {
			fmt.Fprintf(r.stderr, "analyze: warning: %s: no samples (is it k6 --out json output?)\n", in.path)
		}
	}
	for _, m := range r.sel.metrics {
		if !r.names[m] && !r.sel.missingOK {
			return usagef("metric %q is not in the inputs (they have: %s)", m, strings.Join(r.metricNames(), ", "))
		}
	}
	return nil
}

func lineList(lines []int64, total int64) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = fmt.Sprint(l)
	}
	out := strings.Join(s, ", ")
	if total > int64(len(lines)) {
		out += ", ..."
	}
	return out
}

// start is the time of the earliest input's first sample (zero if none).
func (r *reader) start() time.Time {
	var first time.Time
	for _, f := range r.files {
		if !f.Start.IsZero() && (first.IsZero() || f.Start.Before(first)) {
			first = f.Start
		}
	}
	return first
}

// metricNames lists the metric names seen, sorted.
func (r *reader) metricNames() []string {
	names := make([]string, 0, len(r.names))
	for n := range r.names {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// groupFor returns the group of a point's tags in a file, or nil when --where
// rejects them.
func (r *reader) groupFor(file int, tags *k6json.TagSet) *group {
	cache := r.groupOf[file]
	id := tags.ID()
	if id < len(cache) {
		if g := cache[id]; g != 0 {
			if g < 0 {
				return nil
			}
			return r.groups[g-1]
		}
	} else {
		cache = append(cache, make([]int32, id+1-len(cache))...)
		r.groupOf[file] = cache
	}
	if !r.sel.matches(tags) {
		cache[id] = -1
		return nil
	}
	labels := make([]k6json.Tag, 0, len(r.sel.by))
	for _, k := range r.sel.by {
		if k == "file" {
			labels = append(labels, k6json.Tag{Key: "file", Value: r.inputs[file].label})
			continue
		}
		v, _ := tags.Get(k)
		labels = append(labels, k6json.Tag{Key: k, Value: v})
	}
	key := groupKey(labels)
	gi, ok := r.groupIdx[key]
	if !ok {
		gi = len(r.groups)
		r.groups = append(r.groups, &group{id: gi, labels: labels, key: key, file: file})
		r.groupIdx[key] = gi
	}
	cache[id] = int32(gi + 1)
	return r.groups[gi]
}

func groupKey(labels []k6json.Tag) string {
	if len(labels) == 0 {
		return "all"
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = l.Key + "=" + l.Value
	}
	return strings.Join(parts, ",")
}

// groupLabel names a group after a metric name: " (model=a)", or "" for
// the whole population (key "all").
func groupLabel(key string) string {
	if key == "" || key == "all" {
		return ""
	}
	return " (" + key + ")"
}

// metricType returns the declared type of a metric. A metric without a
// declaration (the output was filtered, say) is taken as a Trend, with a warning.
func (r *reader) metricType(name string) (k6json.Type, k6json.ValueType) {
	if m, ok := r.decls[name]; ok && m.Type != k6json.TypeUnknown {
		return m.Type, m.Contains
	}
	fmt.Fprintf(r.stderr, "analyze: warning: %s has no k6 Metric declaration in the inputs; treating it as a Trend\n", name)
	return k6json.Trend, k6json.Default
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
