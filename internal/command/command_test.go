package command

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

var errGate = errors.New("a gate failed")

type codeError struct{ code int }

func (e codeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// testSet has one subcommand per way a command can end.
func testSet() *Set {
	ret := func(err error) Func {
		return func([]string, io.Reader, io.Writer, io.Writer) error { return err }
	}
	return &Set{
		Program: "tool", Args: "[flags] FILE...", Note: "FILE is a file.",
		Commands: []Command{
			{"ok", "succeeds", ret(nil)},
			{"bad", "a usage error", ret(Usagef("flag --x: want a number"))},
			{"fail", "fails", ret(errors.New("disk full"))},
			{"gate", "a gate fails", ret(fmt.Errorf("wrapped: %w", errGate))},
			{"code", "exits with its own code", ret(codeError{7})},
			Version("tool"),
		},
		Classify: func(err error) (int, bool, bool) {
			if errors.Is(err, errGate) {
				return 99, false, true
			}
			if c, ok := errors.AsType[codeError](err); ok {
				return c.code, false, true
			}
			return 0, false, false
		},
	}
}

// TestMain: each way a command ends becomes its exit code, and the error is
// printed after "<program> <command>:" only when the rules say so.
func TestMainExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string // a substring; "" wants nothing written
	}{
		{[]string{"ok"}, ExitOK, ""},
		{[]string{"bad"}, ExitUsage, "tool bad: flag --x: want a number\n"},
		{[]string{"fail"}, ExitError, "tool fail: disk full\n"},
		{[]string{"gate"}, 99, ""},
		{[]string{"code"}, 7, ""},
		{[]string{"nope"}, ExitUsage, "tool: unknown command \"nope\"\n\nusage: tool <command>"},
		{nil, ExitUsage, "usage: tool <command> [flags] FILE..."},
		{[]string{"-h"}, ExitOK, "usage: tool"},
		{[]string{"help"}, ExitOK, "usage: tool"},
		{[]string{"version", "extra"}, ExitUsage, "tool version: unexpected argument \"extra\""},
	} {
		var stdout, stderr bytes.Buffer
		code := testSet().Main(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		if tc.stderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%v: stderr %q, want %q", tc.args, stderr.String(), tc.stderr)
		}
	}
}

// TestPrintUsage: the usage text lists the commands in the Set's order.
func TestPrintUsage(t *testing.T) {
	var b bytes.Buffer
	testSet().PrintUsage(&b)
	want := `usage: tool <command> [flags] FILE...

FILE is a file.

commands:
  ok       succeeds
  bad      a usage error
  fail     fails
  gate     a gate fails
  code     exits with its own code
  version  print the version, commit and Go version

Run 'tool <command> -h' for a command's flags.
`
	if b.String() != want {
		t.Errorf("usage:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestVersion: the version command prints the program's name.
func TestVersion(t *testing.T) {
	var stdout bytes.Buffer
	if code := testSet().Main([]string{"version"}, nil, &stdout, io.Discard); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(stdout.String(), "tool ") {
		t.Errorf("version printed %q, want it to start with the program's name", stdout.String())
	}
}
