package main

import "io"

// runCheck is being written (see the issue tracker); it fails clearly until then.
func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "check")
}
