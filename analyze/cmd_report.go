package main

import "io"

// runReport is being written (see the issue tracker); it fails clearly until then.
func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "report")
}
