// Package cli is the command line analyze's subcommands share: flag values
// (List, Repeat, Duration, Bool), flags and positional arguments in any
// order (ParseArgs), the usage error that makes exit code 2, and the flag
// groups several subcommands register — what to read (Input), what to
// write (Output), checks (Checks), how a gate decides (Gate) and goodput's
// limits (SLO) — each validated into what the library packages take. The
// subcommands themselves (analyze) register them and call the library.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"github.com/llmstream/xk6-llmstream/internal/command"
	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// UsageError marks bad flags or arguments: exit 2, as a rundata.InputError
// (bad input) does. It is the binaries' one kind (internal/command).
type UsageError = command.UsageError

// Usagef is a UsageError.
func Usagef(format string, args ...any) error { return command.Usagef(format, args...) }

// Bool is a boolean flag that remembers whether it was given.
type Bool struct{ V, Given bool }

func (b *Bool) String() string   { return strconv.FormatBool(b.V) }
func (b *Bool) IsBoolFlag() bool { return true }
func (b *Bool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.V, b.Given = v, true
	return nil
}

// List is a repeatable flag whose values may also be comma-separated.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

func (l *List) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// Repeat is a repeatable flag taken whole (a check expression holds commas).
type Repeat []string

func (r *Repeat) String() string { return strings.Join(*r, "; ") }
func (r *Repeat) Set(s string) error {
	*r = append(*r, s)
	return nil
}

// Duration is a duration that remembers whether it was given.
type Duration struct {
	D     time.Duration
	Given bool
}

func (f *Duration) String() string {
	if !f.Given {
		return ""
	}
	return f.D.String()
}

func (f *Duration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 30s or 5m: %v", err)
	}
	if d < 0 {
		return fmt.Errorf("want a duration ≥ 0, got %s", s)
	}
	f.D, f.Given = d, true
	return nil
}

// ParseArgs parses flags and positional arguments in any order (Go's flag
// package stops at the first positional one): `summary a.json --by model b.json`.
// "--" ends the flags. A -h or --help returns flag.ErrHelp after printing usage.
func ParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, UsageError{Err: err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, emptyLists(fs)
		}
		// fs.Parse consumed a "--" if it stopped there; everything after it is
		// positional.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), emptyLists(fs)
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// emptyLists refuses a list flag given with no value (an empty --percentiles=):
// it would silently fall back to the default.
func emptyLists(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if l, ok := f.Value.(*List); ok && len(*l) == 0 && err == nil {
			err = Usagef("--%s was given no value: give at least one, or leave the flag out for the default", f.Name)
		}
	})
	return err
}

// NonNegative refuses a negative, infinite or NaN value of a flag that is a
// width, share or limit.
func NonNegative(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return Usagef("--%s %v: want a number ≥ 0", name, v)
	}
	return nil
}

// NewFlagSet makes a flag set whose errors and usage go to stderr, with a usage
// text of a synopsis, the flags, and examples.
func NewFlagSet(name, synopsis, examples string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("analyze "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: analyze %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
		if examples != "" {
			fmt.Fprintf(stderr, "\nexamples:\n%s", examples)
		}
	}
	return fs
}

// Output are the flags that choose the output: --format and -o.
type Output struct {
	Format  string
	Out     string
	formats []string // the formats this command writes
}

func (o *Output) Register(fs *flag.FlagSet, formats ...string) {
	o.formats = formats
	fs.StringVar(&o.Format, "format", formats[0], "output format: "+strings.Join(formats, ", "))
	fs.StringVar(&o.Out, "o", "-", "write the output to this file (- for stdout)")
}

func (o *Output) Validate() error {
	for _, f := range o.formats {
		if f == o.Format {
			return nil
		}
	}
	return Usagef("unknown --format %q (want %s)", o.Format, strings.Join(o.formats, ", "))
}

// write writes the output to stdout or to the -o file, which appears only
// once complete (internal/atomicfile).
func (o *Output) Write(stdout io.Writer, fn func(io.Writer) error) (err error) {
	if o.Out == "" || o.Out == "-" {
		return fn(stdout)
	}
	return atomicfile.Write(o.Out, 0o644, fn)
}

// Input are the flags every subcommand shares to say what to read and what
// to keep of it. register adds them to a flag set; selection turns them into a
// model.Selection.
type Input struct {
	Metrics  List
	Where    Repeat
	By       List
	From, To Duration
	Lenient  bool
	// Metadata keeps the samples' metadata, for the request join.
	Metadata bool
	Labels   List
}

func (f *Input) Register(fs *flag.FlagSet) {
	fs.Var(&f.Metrics, "metric", "`metric` to read (repeatable or comma-separated; default every llm_* metric present); any k6 Trend, Rate, Counter or Gauge")
	fs.Var(&f.Where, "where", "keep only samples with this tag value, `key=value` (repeatable: all must hold; key= matches an empty or missing tag)")
	fs.Var(&f.By, "by", "group by these `tags` (comma-separated); the name 'file' groups by input file")
	fs.Var(&f.From, "from", "drop samples earlier than this `duration` after each input's first sample (warm-up), e.g. 30s")
	fs.Var(&f.To, "to", "drop samples this `duration` or later after each input's first sample, e.g. 5m")
	fs.BoolVar(&f.Lenient, "lenient", false, "skip corrupt lines (counted and reported) instead of failing")
	fs.Var(&f.Labels, "labels", "`names` for the input files, comma-separated, in order (default: the paths)")
}

// selection validates the flags.
func (f *Input) Selection() (rundata.Selection, error) {
	s := rundata.Selection{Metrics: slices.Clone(f.Metrics), From: f.From.D, HasFrom: f.From.Given, To: f.To.D, HasTo: f.To.Given}
	for _, m := range s.Metrics {
		if strings.ContainsAny(m, "{}: ") {
			return s, Usagef("--metric %q: want a metric name (filter with --where key=value)", m)
		}
	}
	for _, w := range f.Where {
		k, v, ok := strings.Cut(w, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return s, Usagef("--where %q: want key=value", w)
		}
		s.Where = append(s.Where, rundata.Where{Key: strings.TrimSpace(k), Value: v})
	}
	seen := map[string]bool{}
	for _, b := range f.By {
		if seen[b] {
			return s, Usagef("--by %q: %s given twice", f.By.String(), b)
		}
		seen[b] = true
		s.By = append(s.By, b)
	}
	if s.HasFrom && s.HasTo && s.To <= s.From {
		return s, Usagef("--to %s is not after --from %s", s.To, s.From)
	}
	return s, nil
}

// open validates the selection flags and the inputs, lets adjust change the
// selection (e.g. to read a metric in addition), and returns a reader over
// the inputs.
func (f *Input) Open(paths []string, stdin io.Reader, stderr io.Writer, adjust func(*rundata.Selection)) (*rundata.Reader, error) {
	sel, err := f.Selection()
	if err != nil {
		return nil, err
	}
	ins, err := InputsFrom(paths, f.Labels)
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		adjust(&sel)
	}
	return rundata.NewReader(sel, ins, f.Options(stdin, stderr)), nil
}

func (f *Input) Options(stdin io.Reader, stderr io.Writer) rundata.Options {
	return rundata.Options{Lenient: f.Lenient, Stdin: stdin, Warn: stderr, Metadata: f.Metadata}
}

// InputsFrom pairs the positional arguments with their labels.
func InputsFrom(paths []string, labels []string) ([]rundata.Input, error) {
	if len(paths) == 0 {
		return nil, Usagef("no input: give one or more k6 JSON files (--out json=FILE), or - for stdin")
	}
	if len(labels) > 0 && len(labels) != len(paths) {
		return nil, Usagef("--labels has %d names for %d inputs", len(labels), len(paths))
	}
	if CountStdin(paths) > 1 {
		return nil, Usagef("stdin (-) can be read only once")
	}
	ins := make([]rundata.Input, len(paths))
	seen := map[string]bool{}
	for i, p := range paths {
		ins[i] = rundata.Input{Path: p, Label: p}
		if len(labels) > 0 {
			ins[i].Label = labels[i]
		}
		if seen[ins[i].Label] {
			return nil, Usagef("two inputs are labelled %q (use --labels)", ins[i].Label)
		}
		seen[ins[i].Label] = true
	}
	return ins, nil
}

func CountStdin(paths []string) int {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	return n
}

// AlsoFailed reads the failure rate besides the metrics asked for: a summary
// and a report warn when it is high.
func AlsoFailed(s *rundata.Selection) {
	s.Also = []string{metrics.RequestsFailed, metrics.ClientLag, metrics.ITLZeroGaps}
}

// Checks are --check and --checks, which check and report share.
type Checks struct {
	Exprs Repeat
	Files Repeat
}

// register adds the flags; what says what is done with the checks.
func (c *Checks) Register(fs *flag.FlagSet, what string) {
	fs.Var(&c.Exprs, "check", "a check, `'METRIC[{tag:value}]: EXPR'` in k6's threshold syntax, "+what+" (repeatable)")
	fs.Var(&c.Files, "checks", "read checks from this `file`: one per line, or a JSON object like k6's thresholds option (repeatable)")
}

// parse reads the checks, --check ones first, in the order given.
func (c *Checks) Parse() ([]thresholds.Check, error) {
	var checks []thresholds.Check
	for _, e := range c.Exprs {
		cs, err := thresholds.Parse(e)
		if err != nil {
			return nil, Usagef("--check: %v", err)
		}
		checks = append(checks, cs...)
	}
	for _, f := range c.Files {
		cs, err := thresholds.ReadFile(f)
		if err != nil {
			return nil, Usagef("--checks: %v", err)
		}
		checks = append(checks, cs...)
	}
	return checks, nil
}

// Gate are how check and compare decide with confidence: the level,
// and whether an inconclusive gate is accepted.
type Gate struct {
	Confidence float64
	Allow      bool
}

// register adds --allow-inconclusive, and --confidence unless the command
// has its own (what names the gates: "checks", "limits").
func (g *Gate) Register(fs *flag.FlagSet, what string) {
	if fs.Lookup("confidence") == nil {
		fs.Float64Var(&g.Confidence, "confidence", stats.DefaultConfidence, "confidence level "+what+" are judged at, between 0 and 1")
	}
	fs.BoolVar(&g.Allow, "allow-inconclusive", false, "accept "+what+" that cannot be decided at the confidence level (too few samples, or an interval that straddles the limit): they are reported, and exit 0; by default they fail (exit 99)")
}

func (g *Gate) Validate() error {
	if c := g.Confidence; !(c > 0 && c < 1) {
		return Usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	return nil
}

// SLOFlag is --slo: the per-request limits goodput counts against, which
// summary and report share, and the per-token deadline
// (deadline.ttft=1s,deadline.perToken=50ms: metrics.ParseDeadline), judged
// on the records.
type SLOFlag struct {
	Exprs Repeat
}

func (s *SLOFlag) Register(fs *flag.FlagSet) {
	fs.Var(&s.Exprs, "slo", "a per-request SLO limit for goodput, `'METRIC<LIMIT'` or k6's threshold syntax 'llm_ttft: p(99)<2000', "+
		"or a per-token deadline 'deadline.ttft=1s,deadline.perToken=50ms' judged on the records (docs/deadlines.md) "+
		"(a request is good when each of its samples meets it; repeatable; default: the module's llm_slo_met)")
}

// Parse reads the limits ("llm_ttft<2000" is "llm_ttft: max<2000") and the
// deadline (nil: none).
func (s *SLOFlag) Parse() ([]thresholds.Check, *metrics.Deadline, error) {
	d, exprs, err := metrics.ParseDeadline(s.Exprs)
	if err != nil {
		return nil, nil, Usagef("%v", err)
	}
	var out []thresholds.Check
	for _, e := range exprs {
		src := e
		if !strings.Contains(e, ":") {
			if i := strings.IndexAny(e, "<>="); i > 0 {
				src = strings.TrimSpace(e[:i]) + ": max" + e[i:]
			}
		}
		cs, err := thresholds.Parse(src)
		if err != nil {
			return nil, nil, Usagef("--slo %q: %v", e, err)
		}
		out = append(out, cs...)
	}
	return out, d, nil
}

// Join makes the request join for throughput and goodput, and the options
// that measure it, once the reader r exists; with a deadline, r judges the
// records on it.
func (s *SLOFlag) Join(r *rundata.Reader, confidence float64) (*rundata.Requests, result.ThroughputOptions, error) {
	checks, d, err := s.Parse()
	if err != nil {
		return nil, result.ThroughputOptions{}, err
	}
	if d != nil {
		r.SetDeadline(d)
	}
	slo := &result.SLOChecks{Checks: checks, Deadline: d, TypeOf: func(m string) k6json.Type { t, _, _ := r.TypeOf(m); return t }}
	return rundata.NewRequests(slo.Streams()), result.ThroughputOptions{Confidence: confidence, SLO: slo}, nil
}
