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
	"io"
	"os"

	"github.com/llmstream/xk6-llmstream/internal/command"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Exit codes, as k6's: 99 when a check (threshold) fails.
const (
	exitOK          = 0
	exitError       = 1  // an unexpected failure (I/O error writing output, ...)
	exitUsage       = 2  // bad flags, arguments, or unreadable/invalid input
	exitCheckFailed = 99 // a check or regression limit failed, like k6's thresholds
)

// commands are the subcommands, in the usage text's order.
var commands = &command.Set{
	Program: "analyze",
	Args:    "[flags] FILE...",
	Note:    "FILE is k6 --out json output: NDJSON, optionally .gz; - reads stdin.",
	Commands: []command.Command{
		{Name: "summary", Summary: "percentile tables with confidence intervals and warnings", Run: runSummary},
		{Name: "check", Summary: "evaluate k6-style thresholds; exit 99 when one fails", Run: runCheck},
		{Name: "plot", Summary: "draw ECDF plots (PNG or SVG)", Run: runPlot},
		{Name: "compare", Summary: "compare a baseline run with a candidate run", Run: runCompare},
		{Name: "report", Summary: "write a self-contained HTML report with plots", Run: runReport},
		{Name: "export", Summary: "write one run as llm-d-benchmark's standard benchmark report v0.2 (--format llm-d-report)", Run: runExport},
		{Name: "history", Summary: "runs of a scheduled test over time: trend, step and drift alerts", Run: runHistory},
		{Name: "tail", Summary: "where the TTFT tail comes from: stages and request attributes (records files)", Run: runTail},
		command.Version("analyze"),
	},
	// A failed gate exits 99 (the command has printed what failed); bad
	// input exits 2, as a usage error does.
	Classify: func(err error) (int, bool, bool) {
		if errors.Is(err, errCheckFailed) {
			return exitCheckFailed, false, true
		}
		if _, ok := errors.AsType[*rundata.InputError](err); ok {
			return exitUsage, true, true
		}
		return 0, false, false
	},
}

// usageError marks bad flags or arguments: exit 2, as a rundata.InputError
// (bad input) does.
type usageError = command.UsageError

func usagef(format string, args ...any) error { return command.Usagef(format, args...) }

// errCheckFailed is returned by commands whose gate failed: exit 99. The command
// has already printed what failed.
var errCheckFailed = errors.New("a check failed")

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// realMain runs a subcommand and returns the exit code (command.Set.Main).
func realMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return commands.Main(args, stdin, stdout, stderr)
}
