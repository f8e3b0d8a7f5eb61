package main

import "io"

// runSummary is being written (see the issue tracker); it fails clearly until then.
func runSummary(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "summary")
}
