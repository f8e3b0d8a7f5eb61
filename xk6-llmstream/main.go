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

	"github.com/llmstream/xk6-llmstream/internal/command"
)

// Exit codes. A command that ran k6 exits with k6's own code instead.
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed
	exitUsage = 2 // bad flags, arguments or input
)

// commands are the subcommands, in the usage text's (alphabetical) order.
var commands = &command.Set{
	Program: "xk6-llmstream",
	Args:    "[flags] [args]",
	Commands: []command.Command{
		{Name: "calibrate", Summary: "run a k6 script against the mock shaped like the target and report this machine's own error at that load", Run: runCalibrate},
		{Name: "dataset", Summary: "build a JSONL request dataset (ShareGPT, JSONL, CSV or synthetic)", Run: runDataset},
		{Name: "helper", Summary: "serve the streaming helper the JavaScript module talks to", Run: runHelper},
		{Name: "init", Summary: "write llmstream.js, its typings and a starter script into a folder", Run: runInit},
		{Name: "inspect", Summary: "decode a recorded SSE body and print what it holds as JSON", Run: runInspect},
		{Name: "mock", Summary: "serve the mock LLM (every dialect: OpenAI, Anthropic, Gemini, Cohere, ollama; streamed and not)", Run: runMock},
		{Name: "run", Summary: "start the helper (and the mock) and run a k6 script with stock k6", Run: runRun},
		{Name: "sweep", Summary: "run a k6 script at a series of load levels and find the highest one that meets the SLO", Run: runSweep},
		command.Version("xk6-llmstream"),
	},
	// A command that ran k6 exits with k6's code, unprinted.
	Classify: func(err error) (int, bool, bool) {
		if c, ok := errors.AsType[exitCodeError](err); ok {
			return c.code, false, true
		}
		return 0, false, false
	},
}

// usageError marks an error caused by how the command was called; it exits 2.
type usageError = command.UsageError

func usagef(format string, args ...any) error { return command.Usagef(format, args...) }

// exitCodeError carries an exit code chosen by a command (the runner returns
// k6's exit code this way).
type exitCodeError struct{ code int }

func (e exitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// realMain runs a subcommand and returns the exit code (command.Set.Main).
func realMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return commands.Main(args, stdin, stdout, stderr)
}
