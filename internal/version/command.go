package version

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
)

// ErrUsage marks an error in how the version command was called; the binary
// exits 2 for it.
var ErrUsage = errors.New("usage")

const usage = `usage: %s version [--json]

Prints the version, the git commit the binary was built from ("unknown" when it
was built without VCS information and without -ldflags) and the Go toolchain.
The binaries and llmstream.js must carry the same version.

Flags:
`

// Command is the `version` subcommand of the binary named name (xk6-llmstream
// or analyze): it parses args and prints this build's Info, as text or with
// --json as one JSON object. A usage error wraps ErrUsage.
func Command(name string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the build information as one JSON object")
	fs.Usage = func() {
		fmt.Fprintf(stderr, usage, name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (version takes only flags)", ErrUsage, fs.Arg(0))
	}
	in := Get()
	if *asJSON {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	return Write(stdout, name, in)
}
