package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/recordstest"
)

// A records file with bad lines: tail and summary fail naming the first bad
// line and --lenient; with --lenient they skip the bad lines and say which.
func TestRecordsLenient(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(recordstest.WriteSlowInstance(t, 4000))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[4] = []byte(`{"v":1,"start_ns":` + "\n") // line 5
	lines[99] = []byte("garbage\n")                // line 100
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"tail", "summary"} {
		var out, errb strings.Builder
		code := realMain([]string{cmd, bad}, nil, &out, &errb)
		if code == exitOK || !strings.Contains(errb.String(), "line 5") || !strings.Contains(errb.String(), "--lenient") {
			t.Errorf("%s: exit %d, stderr %q; want a failure naming line 5 and --lenient", cmd, code, errb.String())
		}
		out.Reset()
		errb.Reset()
		code = realMain([]string{cmd, "--lenient", bad}, nil, &out, &errb)
		if code != exitOK || !strings.Contains(errb.String(), "5, 100") || !strings.Contains(errb.String(), bad) {
			t.Errorf("%s --lenient: exit %d, stderr %q; want success and a warning naming lines 5 and 100", cmd, code, errb.String())
		}
	}
}
