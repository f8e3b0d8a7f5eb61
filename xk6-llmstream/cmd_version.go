package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/llmstream/xk6-llmstream/internal/version"
)

const versionUsage = `usage: xk6-llmstream version [--json]

Prints the version, the git commit the binary was built from ("unknown" when it
was built without VCS information and without -ldflags) and the Go toolchain.
The binaries and llmstream.js must carry the same version.

Flags:
`

// runVersion is the `version` command.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the build information as one JSON object")
	fs.Usage = func() {
		fmt.Fprint(stderr, versionUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (version takes only flags)", fs.Arg(0))
	}
	in := version.Get()
	if *asJSON {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	return version.Write(stdout, "xk6-llmstream", in)
}
