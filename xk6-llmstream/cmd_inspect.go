package main

import "io"

// runInspect is being written (see the issue tracker); it fails clearly until then.
func runInspect(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "inspect")
}
