package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/version"
)

func TestVersionCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := realMain([]string{"version"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"xk6-llmstream " + version.Version + "\n", "  commit:  ", "  go:      " + runtime.Version()} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("version output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := realMain([]string{"version", "--json"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var in version.Info
	if err := json.Unmarshal(out.Bytes(), &in); err != nil {
		t.Fatalf("version --json: %v: %s", err, out.String())
	}
	if in.Version != version.Version || in.GoVersion != runtime.Version() || in.Commit == "" {
		t.Errorf("version --json gave %+v", in)
	}
	if code := realMain([]string{"version", "extra"}, nil, &out, &errOut); code != exitUsage {
		t.Errorf("version with an argument: exit %d, want %d", code, exitUsage)
	}
}
