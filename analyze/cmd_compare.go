package main

import "io"

// runCompare is being written (see the issue tracker); it fails clearly until then.
func runCompare(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "compare")
}
