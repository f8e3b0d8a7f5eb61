// Command xk6-llmstream is the Go side of the xk6-llmstream k6 module: the
// streaming helper the JavaScript module talks to, the mock LLM server, the runner
// that starts both around a stock k6, and an inspector for recorded SSE bodies.
//
// Usage:
//
//	xk6-llmstream run [--mock] script.js [k6 run flags...]
//	xk6-llmstream helper [--addr 127.0.0.1:0] [--allow host,...]
//	xk6-llmstream mock [--addr 127.0.0.1:0] [--seed N] [--profile FILE]
//	xk6-llmstream inspect [--dialect D] FILE|-
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit codes. A command that ran k6 exits with k6's own code instead.
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed
	exitUsage = 2 // bad flags, arguments or input
)

// command is one subcommand: it parses its own flags from args and returns an
// error instead of exiting, so it can be tested.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"run":       {"start the helper (and the mock) and run a k6 script with stock k6", runRun},
	"helper":    {"serve the streaming helper the JavaScript module talks to", runHelper},
	"mock":      {"serve the mock LLM (every dialect: OpenAI, Anthropic, Gemini, Cohere, ollama; streamed and not)", runMock},
	"inspect":   {"decode a recorded SSE body and print what it holds as JSON", runInspect},
	"dataset":   {"build a JSONL request dataset (ShareGPT, JSONL, CSV or synthetic)", runDataset},
	"version":   {"print the version, commit and Go version", runVersion},
	"init":      {"write llmstream.js, its typings and a starter script into a folder", runInit},
	"sweep":     {"run a k6 script at a series of load levels and find the highest one that meets the SLO", runSweep},
	"calibrate": {"run a k6 script against the mock shaped like the target and report this machine's own error at that load", runCalibrate},
}

// usageError marks an error caused by how the command was called; it exits 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCodeError carries an exit code chosen by a command (the runner returns
// k6's exit code this way).
type exitCodeError struct{ code int }

func (e exitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

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
		fmt.Fprintf(stderr, "xk6-llmstream: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return exitUsage
	}
	err := cmd.run(args[1:], stdin, stdout, stderr)
	var code exitCodeError
	var usage usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return code.code
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "xk6-llmstream %s: %v\n", args[0], err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "xk6-llmstream %s: %v\n", args[0], err)
		return exitError
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: xk6-llmstream <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'xk6-llmstream <command> -h' for a command's flags.")
}
