// Command analyze reads k6 JSON output (--out json) and answers what a team asks
// after a load test of an LLM API: the whole latency distribution, how sure we are
// of each percentile, whether a limit holds, and where the tail is.
//
// Usage:
//
//	analyze summary FILE...            percentile tables (text, markdown, json)
//	analyze check FILE... --check EXPR exit 99 when a k6-style threshold fails
//	analyze plot FILE... -o OUT.png    ECDF plots
//	analyze compare BASE CANDIDATE     regression test between two runs
//	analyze report FILE... -o DIR      self-contained HTML report
//	analyze history FILE               run history: trend, step and drift alerts
//	analyze tail RECORDS...            where the TTFT tail comes from (stages, attributes)
package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/llmstream/xk6-llmstream/analyze/cli"
	"io"
	"os"

	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Exit codes, as k6's: 99 when a check (threshold) fails.
const (
	exitOK          = 0
	exitError       = 1  // an unexpected failure (I/O error writing output, ...)
	exitUsage       = 2  // bad flags, arguments, or unreadable/invalid input
	exitCheckFailed = 99 // a check or regression limit failed, like k6's thresholds
)

type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// commandOrder is the order of the usage text.
var commandOrder = []string{"summary", "check", "plot", "compare", "report", "export", "history", "tail", "version"}

var commands = map[string]command{
	"summary": {"percentile tables with confidence intervals and warnings", runSummary},
	"check":   {"evaluate k6-style thresholds; exit 99 when one fails", runCheck},
	"plot":    {"draw ECDF plots (PNG or SVG)", runPlot},
	"compare": {"compare a baseline run with a candidate run", runCompare},
	"report":  {"write a self-contained HTML report with plots", runReport},
	"export":  {"write one run as llm-d-benchmark's standard benchmark report v0.2 (--format llm-d-report)", runExport},
	"history": {"runs of a scheduled test over time: trend, step and drift alerts", runHistory},
	"tail":    {"where the TTFT tail comes from: stages and request attributes (records files)", runTail},
	"version": {"print the version, commit and Go version", runVersion},
}

// usageError marks bad flags or arguments: exit 2, as a model.InputError
// (bad input) does.
type usageError = cli.UsageError

func usagef(format string, args ...any) error { return cli.Usagef(format, args...) }

// errCheckFailed is returned by commands whose gate failed: exit 99. The command
// has already printed what failed.
var errCheckFailed = errors.New("a check failed")

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// realMain is the single place where errors become exit codes.
func realMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "analyze: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return exitUsage
	}
	err := cmd.run(args[1:], stdin, stdout, stderr)
	var usage usageError
	var input *rundata.InputError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errCheckFailed):
		return exitCheckFailed
	case errors.As(err, &usage), errors.As(err, &input):
		fmt.Fprintf(stderr, "analyze %s: %v\n", args[0], err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "analyze %s: %v\n", args[0], err)
		return exitError
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: analyze <command> [flags] FILE...")
	fmt.Fprintln(w, "\nFILE is k6 --out json output: NDJSON, optionally .gz; - reads stdin.")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandOrder {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'analyze <command> -h' for a command's flags.")
}
