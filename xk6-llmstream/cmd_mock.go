package main

import "io"

// runMock is being written (see the issue tracker); it fails clearly until then.
func runMock(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "mock")
}
