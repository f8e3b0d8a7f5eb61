package main

import "io"

// runHelper is being written (see the issue tracker); it fails clearly until then.
func runHelper(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "helper")
}
