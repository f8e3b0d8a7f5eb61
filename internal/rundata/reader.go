package rundata

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"

	"github.com/agnivade/levenshtein"
)

// Input is one file to read: its path ("-" for stdin) and the label it is
// known by in groups and reports.
type Input struct {
	Path  string
	Label string
}

// Options are how a Reader reads.
type Options struct {
	// Lenient skips corrupt lines (counted and reported) instead of failing.
	Lenient bool
	// Stdin is read for the path "-".
	Stdin io.Reader
	// Warn receives the warnings about the inputs (damage, skipped lines, no
	// samples, a metric without a declaration); nil discards them.
	Warn io.Writer
	// Metadata keeps each sample's metadata (llm_request_id), for the
	// request join (Requests).
	Metadata bool
}

// Reader streams the selected points of a list of inputs. It owns one
// k6json.Scanner, so tag sets are shared across the inputs. Read it once,
// with Each or Collect; after that it answers what the inputs held.
type Reader struct {
	sel    Selection
	inputs []Input
	opts   Options
	keep   func(name string) bool
	// deadline judges the records (SetDeadline); nil: none.
	deadline *metrics.Deadline

	// Filled while reading:
	decls  map[string]*k6json.Metric // first declaration of each metric, with every declaration's thresholds
	declIn map[string]int            // the input of each metric's first declaration
	names  map[string]bool           // every metric name seen
	files  []k6json.FileStats
	groups []*Group
	// groupOf[file][tagSetID] is the group of a tag set (-1: filtered out, 0:
	// not yet decided, g+1 otherwise).
	groupOf  [][]int32
	groupIdx map[string]int
}

// NewReader makes a reader of the inputs for the selection.
func NewReader(sel Selection, ins []Input, o Options) *Reader {
	if o.Warn == nil {
		o.Warn = io.Discard
	}
	return &Reader{sel: sel, inputs: ins, opts: o,
		decls: map[string]*k6json.Metric{}, declIn: map[string]int{}, names: map[string]bool{}, groupIdx: map[string]int{}}
}

// Selection is what the reader keeps.
func (r *Reader) Selection() Selection { return r.sel }

// Inputs are the inputs, in order.
func (r *Reader) Inputs() []Input { return r.inputs }

// Files are the facts about each input read (lines, samples, damage, ...).
func (r *Reader) Files() []k6json.FileStats { return r.files }

// SetKeep replaces the selection's choice of metrics: keep is asked once per
// metric name, at its first point (after its declaration when the input
// holds one before it; a later input may declare it).
func (r *Reader) SetKeep(keep func(name string) bool) { r.keep = keep }

// SetDeadline judges every record on d (metrics.Deadline.Judge, the module's
// rule): the records' llm_fluidity and llm_deadline_met samples are d's, and
// k6's own samples of the two (a Client's slo.deadline, perhaps another) are
// left out. Reading fails without a records input: only the records hold
// each token's arrival. Call it before Each.
func (r *Reader) SetDeadline(d *metrics.Deadline) { r.deadline = d }

// Declaration returns a metric's first declaration in the inputs (the first
// with a type, when one has it). Its Thresholds are those of every
// declaration of the metric in every input, each once: a later input, or a
// later line, may add some, so they are complete only once Each returns (a
// keep function asked at the metric's first point cannot know them).
func (r *Reader) Declaration(name string) (*k6json.Metric, bool) {
	m, ok := r.decls[name]
	return m, ok
}

// Seen reports whether the inputs have any line of the metric.
func (r *Reader) Seen(name string) bool { return r.names[name] }

// Each reads every input in order and calls fn with each selected point (in
// the selected metrics, passing Where and the time window) and its group.
// The point is reused by the scanner: copy what you keep. Warnings about
// damaged inputs and skipped lines go to Options.Warn; a corrupt line is an
// InputError naming the file and line.
func (r *Reader) Each(fn func(file int, g *Group, p *k6json.Point) error) error {
	file := 0
	keep := func(name string) bool {
		r.names[name] = true
		if r.keep != nil {
			return r.keep(name)
		}
		return r.sel.Keeps(name)
	}
	sc := &k6json.Scanner{
		Keep:         keep,
		Lenient:      r.opts.Lenient,
		KeepMetadata: r.opts.Metadata,
		OnMetric:     func(m *k6json.Metric) error { return r.declare(file, m) },
		OnPoint: func(p *k6json.Point) error {
			if !r.sel.InWindow(p.Elapsed) {
				return nil
			}
			g := r.groupFor(file, p.Tags)
			if g == nil {
				return nil
			}
			return fn(file, g, p)
		},
	}
	rr := r.prepareRecords(sc, keep)
	if r.deadline != nil && rr == nil {
		return Errorf("a deadline (--slo deadline.ttft=…,deadline.perToken=…) is judged on each token's arrival, which only a records file holds: give the run's records (run --records) among the inputs")
	}
	r.groupOf = make([][]int32, len(r.inputs))
	r.files = make([]k6json.FileStats, len(r.inputs))
	for _, i := range rr.order(len(r.inputs)) {
		file = i
		in := r.inputs[i]
		var st k6json.FileStats
		var err error
		if rr.isRecords(i) {
			st, err = rr.scanFile(in.Path, sc, keep)
		} else {
			st, err = sc.ScanFile(in.Path, r.opts.Stdin)
		}
		r.files[i] = st
		if err != nil {
			var le *k6json.LineError
			if errors.As(err, &le) && st.Points == 0 && st.Decls == 0 && st.Other == 0 {
				// Nothing of k6's was read before the bad line: the file is
				// not a damaged k6 output but something else (a README).
				return &InputError{fmt.Errorf("%s is not k6 --out json output (one JSON object a line, from k6 run --out json=FILE): line %d: %v", in.Path, le.Line, le.Err)}
			}
			if le != nil || errors.As(err, new(*records.LineError)) {
				return &InputError{fmt.Errorf("%w (use --lenient to skip corrupt lines)", err)}
			}
			return &InputError{err}
		}
		r.warnFile(in, st)
		if st.Points == 0 {
			return &InputError{noSamples(in.Path, st)}
		}
	}
	rr.warn(r.opts.Warn)
	for _, m := range r.sel.Metrics {
		if !r.names[m] && !r.sel.MissingOK {
			return r.NotInInputs(m)
		}
	}
	return nil
}

// declare keeps a metric's first declaration (with a type, when one has it),
// with the thresholds of every declaration read (each once, in the order
// read); a declaration of another type in an input is an error naming both
// inputs (the metric's samples could not be read as one type). It keeps a
// copy: the scanner's declarations are not the reader's to change.
func (r *Reader) declare(file int, m *k6json.Metric) error {
	first, ok := r.decls[m.Name]
	if ok && first.Type != k6json.TypeUnknown && m.Type != k6json.TypeUnknown && m.Type != first.Type {
		return fmt.Errorf("metric %s is a %s in %s but a %s in %s: one metric cannot be read as two types",
			m.Name, first.Type, r.inputs[r.declIn[m.Name]].Path, m.Type, r.inputs[file].Path)
	}
	var thresholds []string
	if ok {
		thresholds = first.Thresholds
	}
	for _, t := range m.Thresholds {
		if !slices.Contains(thresholds, t) {
			thresholds = append(thresholds, t)
		}
	}
	if !ok || first.Type == k6json.TypeUnknown {
		c := *m
		first, r.decls[m.Name], r.declIn[m.Name] = &c, &c, file
	}
	first.Thresholds = thresholds
	return nil
}

// warnFile warns about an input cut short, or with skipped lines.
func (r *Reader) warnFile(in Input, st k6json.FileStats) {
	if st.Damage != "" {
		fmt.Fprintf(r.opts.Warn, "analyze: warning: %s: %s; read %d lines, %d samples (%d of the selected metrics) before the damage\n",
			in.Path, st.Damage, st.Lines, st.Points, st.Kept)
	}
	if st.Skipped > 0 {
		fmt.Fprintf(r.opts.Warn, "analyze: warning: %s: skipped %d corrupt line(s) (lines %s)\n",
			in.Path, st.Skipped, LineList(st.SkippedLines, st.Skipped))
	}
}

// noSamples is the error of an input without a single sample (a Point line,
// or a record): an empty file, declarations only, or a gzip cut before its
// first sample. Nothing can be said of such an input, so it is refused
// rather than reported as a run of no requests.
func noSamples(path string, st k6json.FileStats) error {
	what := "it is empty"
	switch {
	case st.Damage != "":
		what = fmt.Sprintf("it was cut short before its first sample (%s)", st.Damage)
	case st.Lines > 0:
		what = fmt.Sprintf("none of its %d line(s) is a sample (a Point line)", st.Lines)
	}
	return fmt.Errorf("%s: no samples: %s; is it k6 --out json output?", path, what)
}

// LineList writes line numbers as "3, 17, 20", with ", ..." when total is
// more than were listed.
func LineList(lines []int64, total int64) string {
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

// Start is the time of the earliest input's first sample (zero if none): the
// origin of a Counter's per-second rate.
func (r *Reader) Start() time.Time {
	var first time.Time
	for _, f := range r.files {
		if !f.Start.IsZero() && (first.IsZero() || f.Start.Before(first)) {
			first = f.Start
		}
	}
	return first
}

// MetricNames lists the metric names seen, sorted.
// NotInInputs is the error for a metric the inputs do not have: it names
// the closest one they have ("did you mean"), when one is close, and lists
// them all. An InputError: a usage error, exit 2.
func (r *Reader) NotInInputs(name string) error {
	hint := ""
	if s := r.Suggest(name); s != "" {
		hint = fmt.Sprintf("did you mean %s? ", s)
	}
	return Errorf("metric %q is not in the inputs (%sthey have: %s)", name, hint, strings.Join(r.MetricNames(), ", "))
}

// Suggest is the metric of the inputs closest to name by edit distance, when
// it is within a third of name's length (at least 1, at most 3 edits): a
// likely typo. Empty when none is that close.
func (r *Reader) Suggest(name string) string {
	best, bestD := "", min(max(len(name)/3, 1), 3)+1
	for _, n := range r.MetricNames() {
		if d := levenshtein.ComputeDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func (r *Reader) MetricNames() []string {
	names := make([]string, 0, len(r.names))
	for n := range r.names {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TypeOf returns the declared type of a metric, and whether it was declared
// (so far, while reading). A metric without a declaration (the output was
// filtered, say) is taken as a Trend.
func (r *Reader) TypeOf(name string) (k6json.Type, k6json.ValueType, bool) {
	if m, ok := r.decls[name]; ok && m.Type != k6json.TypeUnknown {
		return m.Type, m.Contains, true
	}
	return k6json.Trend, k6json.Default, false
}

// MetricType is TypeOf that warns when the metric has no declaration.
func (r *Reader) MetricType(name string) (k6json.Type, k6json.ValueType) {
	typ, contains, ok := r.TypeOf(name)
	if !ok {
		r.WarnUndeclared(name)
	}
	return typ, contains
}

// WarnUndeclared warns that a metric is taken as a Trend for want of a
// declaration.
func (r *Reader) WarnUndeclared(name string) {
	fmt.Fprintf(r.opts.Warn, "analyze: warning: %s has no k6 Metric declaration in the inputs; treating it as a Trend\n", name)
}

// groupFor returns the group of a point's tags in a file, or nil when Where
// rejects them.
func (r *Reader) groupFor(file int, tags *k6json.TagSet) *Group {
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
	if !r.sel.Matches(tags) {
		cache[id] = -1
		return nil
	}
	labels := make([]k6json.Tag, 0, len(r.sel.By))
	for _, k := range r.sel.By {
		if k == "file" {
			labels = append(labels, k6json.Tag{Key: "file", Value: r.inputs[file].Label})
			continue
		}
		v, _ := tags.Get(k)
		labels = append(labels, k6json.Tag{Key: k, Value: v})
	}
	key := groupKey(labels)
	gi, ok := r.groupIdx[key]
	if !ok {
		gi = len(r.groups)
		r.groups = append(r.groups, &Group{ID: gi, Labels: labels, Key: key, File: file})
		r.groupIdx[key] = gi
	}
	cache[id] = int32(gi + 1)
	return r.groups[gi]
}
