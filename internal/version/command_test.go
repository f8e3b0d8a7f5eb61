package version

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := Command("tool", nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tool " + Version + "\n", "  commit:  ", "  go:      " + runtime.Version()} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("version output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := Command("tool", []string{"--json"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var in Info
	if err := json.Unmarshal(out.Bytes(), &in); err != nil {
		t.Fatalf("version --json: %v: %s", err, out.String())
	}
	if in.Version != Version || in.GoVersion != runtime.Version() || in.Commit == "" {
		t.Errorf("version --json gave %+v", in)
	}
	for _, args := range [][]string{{"extra"}, {"--nope"}} {
		if err := Command("tool", args, &out, &errOut); !errors.Is(err, ErrUsage) {
			t.Errorf("version %v: %v, want a usage error", args, err)
		}
	}
}
