package main

import "io"

// runRun is being written (see the issue tracker); it fails clearly until then.
func runRun(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "run")
}
