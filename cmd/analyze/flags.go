package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// repeatFlag is a repeatable flag taken whole (a check expression holds commas).
type repeatFlag []string

func (r *repeatFlag) String() string { return strings.Join(*r, "; ") }
func (r *repeatFlag) Set(s string) error {
	*r = append(*r, s)
	return nil
}

// durationFlag is a duration that remembers whether it was given.
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string {
	if !f.set {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 30s or 5m: %v", err)
	}
	if d < 0 {
		return fmt.Errorf("want a duration ≥ 0, got %s", s)
	}
	f.d, f.set = d, true
	return nil
}

// parseArgs parses flags and positional arguments in any order (Go's flag
// package stops at the first positional one): `summary a.json --by model b.json`.
// "--" ends the flags. A -h or --help returns flag.ErrHelp after printing usage.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
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
		if l, ok := f.Value.(*listFlag); ok && len(*l) == 0 && err == nil {
			err = usagef("--%s was given no value: give at least one, or leave the flag out for the default", f.Name)
		}
	})
	return err
}

// nonNegative refuses a negative, infinite or NaN value of a flag that is a
// width, share or limit.
func nonNegative(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return usagef("--%s %v: want a number ≥ 0", name, v)
	}
	return nil
}

// newFlagSet makes a flag set whose errors and usage go to stderr, with a usage
// text of a synopsis, the flags, and examples.
func newFlagSet(name, synopsis, examples string, stderr io.Writer) *flag.FlagSet {
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

// outputFlags are the flags that choose the output: --format and -o.
type outputFlags struct {
	format  string
	out     string
	formats []string // the formats this command writes
}

func (o *outputFlags) register(fs *flag.FlagSet, formats ...string) {
	o.formats = formats
	fs.StringVar(&o.format, "format", formats[0], "output format: "+strings.Join(formats, ", "))
	fs.StringVar(&o.out, "o", "-", "write the output to this file (- for stdout)")
}

func (o *outputFlags) validate() error {
	for _, f := range o.formats {
		if f == o.format {
			return nil
		}
	}
	return usagef("unknown --format %q (want %s)", o.format, strings.Join(o.formats, ", "))
}

// write writes the output to stdout or to the -o file, keeping any error
// (including Close's).
func (o *outputFlags) write(stdout io.Writer, fn func(io.Writer) error) (err error) {
	if o.out == "" || o.out == "-" {
		return fn(stdout)
	}
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	return fn(f)
}
