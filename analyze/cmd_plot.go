package main

import "io"

// runPlot is being written (see the issue tracker); it fails clearly until then.
func runPlot(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return usagef("%s: not implemented yet", "plot")
}
