// Package command is the subcommand kit both binaries (xk6-llmstream and
// analyze) are built on: one table of subcommands, one dispatch that turns a
// subcommand's error into the exit code and message, one usage text, and the
// version subcommand.
package command

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/version"
)

// The exit codes the kit gives; a binary's Classify adds its own.
const (
	ExitOK    = 0
	ExitError = 1 // the command ran and failed
	ExitUsage = 2 // bad flags, arguments or input
)

// Func is a subcommand: it parses its own flags from args and returns an
// error instead of exiting, so that it can be tested.
type Func func(args []string, stdin io.Reader, stdout, stderr io.Writer) error

// Command is one subcommand with its one-line summary.
type Command struct {
	Name    string
	Summary string
	Run     Func
}

// UsageError marks an error caused by how the command was called: it exits
// ExitUsage.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError.
func Usagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// Set is a binary's subcommands.
type Set struct {
	Program  string    // the binary's name, which starts its messages
	Args     string    // the usage line after "<command>", e.g. "[flags] FILE..."
	Note     string    // a paragraph of the usage text before the commands ("" none)
	Commands []Command // in the usage text's order
	// Classify, when set, decides first how an error of a subcommand ends
	// the binary: its exit code and whether it is printed; ok false leaves
	// the error to the kit's rules (usage errors ExitUsage, others
	// ExitError, both printed).
	Classify func(err error) (code int, print, ok bool)
}

// Names returns the subcommands' names, in the usage text's order.
func (s *Set) Names() []string {
	out := make([]string, len(s.Commands))
	for i, c := range s.Commands {
		out[i] = c.Name
	}
	return out
}

// Lookup finds a subcommand by name.
func (s *Set) Lookup(name string) (Command, bool) {
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Main runs the subcommand args[0] names with the rest of args and returns
// the exit code: the single place where errors become exit codes. No
// arguments print the usage and exit ExitUsage; -h, --help and help print
// it and exit ExitOK; an unknown command is a usage error.
func (s *Set) Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		s.PrintUsage(stderr)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	cmd, ok := s.Lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", s.Program, args[0])
		s.PrintUsage(stderr)
		return ExitUsage
	}
	err := cmd.Run(args[1:], stdin, stdout, stderr)
	code, print := s.exit(err)
	if print {
		fmt.Fprintf(stderr, "%s %s: %v\n", s.Program, cmd.Name, err)
	}
	return code
}

// exit is how err ends the binary.
func (s *Set) exit(err error) (code int, print bool) {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return ExitOK, false
	}
	if s.Classify != nil {
		if code, print, ok := s.Classify(err); ok {
			return code, print
		}
	}
	if _, ok := errors.AsType[UsageError](err); ok {
		return ExitUsage, true
	}
	return ExitError, true
}

// PrintUsage writes the usage text: the usage line, the note, the commands
// with their summaries, and how to see a command's flags.
func (s *Set) PrintUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s <command> %s\n", s.Program, s.Args)
	if s.Note != "" {
		fmt.Fprintln(w, "\n"+s.Note)
	}
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range s.Commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun '%s <command> -h' for a command's flags.\n", s.Program)
}

// Version is the version subcommand of program (internal/version.Command),
// its usage errors UsageErrors.
func Version(program string) Command {
	return Command{
		Name:    "version",
		Summary: "print the version, commit and Go version",
		Run: func(args []string, _ io.Reader, stdout, stderr io.Writer) error {
			err := version.Command(program, args, stdout, stderr)
			if errors.Is(err, version.ErrUsage) {
				return Usagef("%s", strings.TrimPrefix(err.Error(), version.ErrUsage.Error()+": "))
			}
			return err
		},
	}
}
