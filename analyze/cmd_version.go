package main

import (
	"errors"
	"io"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/version"
)

// runVersion is the `version` command (internal/version.Command).
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	err := version.Command("analyze", args, stdout, stderr)
	if errors.Is(err, version.ErrUsage) {
		return usagef("%s", strings.TrimPrefix(err.Error(), version.ErrUsage.Error()+": "))
	}
	return err
}
