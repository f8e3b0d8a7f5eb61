package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/version"
)

// The command itself is tested in internal/version; here, that this binary
// runs it under its own name and maps its usage errors to exit 2.
func TestVersionCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := realMain([]string{"version"}, nil, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "xk6-llmstream "+version.Version+"\n") {
		t.Fatalf("exit %d, output %q: %s", code, out.String(), errOut.String())
	}
	if code := realMain([]string{"version", "extra"}, nil, &out, &errOut); code != exitUsage {
		t.Errorf("version with an argument: exit %d, want %d", code, exitUsage)
	}
}
