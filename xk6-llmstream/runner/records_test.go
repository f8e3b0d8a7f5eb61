package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `run --records script.js` (the records file name forgotten) must not turn
// the script into a records file: Run fails before k6 starts, naming the
// file and the flag that would replace it; with RecordsOverwrite it does.
func TestRunKeepsAFileThatIsNotRecords(t *testing.T) {
	t.Parallel()
	env, record := fakeEnv(t)
	script := filepath.Join(t.TempDir(), "myscript.js")
	src := []byte("export default function () {}\n")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	_, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr, Records: script})
	if err == nil || !strings.Contains(err.Error(), script) || !strings.Contains(err.Error(), "--records-overwrite") {
		t.Fatalf("Run: %v; want an error naming %s and --records-overwrite", err, script)
	}
	if got, _ := os.ReadFile(script); string(got) != string(src) {
		t.Fatalf("the script was changed to %q", got)
	}
	if _, err := os.Stat(record); err == nil {
		t.Error("k6 was started")
	}
	code, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr, Records: script, RecordsOverwrite: true})
	if err != nil || code != 0 {
		t.Fatalf("with RecordsOverwrite: %d, %v", code, err)
	}
	if got, _ := os.ReadFile(script); !strings.HasPrefix(string(got), `{"format":"llmstream-records"`) {
		t.Fatalf("with RecordsOverwrite the file is not a records file: %q", got)
	}
}

// A records file the run cannot write (/dev/full: every write fails with
// ENOSPC) is said at the first failed write, naming the file and the
// error, and Run fails although k6 exited 0.
func TestRunFailsWhenTheRecordsCannotBeWritten(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	env, _ := fakeEnv(t, "FAKE_K6_PROBE=/v1/chat/completions")
	var stderr lockedBuffer
	code, err := Run(context.Background(), Config{Args: []string{"s.js"}, Env: env, Stderr: &stderr, Records: "/dev/full"})
	if err == nil {
		t.Fatalf("Run = %d, nil: a run whose records were lost succeeded\n%s", code, stderr.String())
	}
	if !strings.Contains(err.Error(), "/dev/full") || !strings.Contains(err.Error(), "no space") {
		t.Errorf("error %q does not name the file and the write error", err)
	}
	logs := stderr.String()
	first := strings.Index(logs, "error: records: writing /dev/full")
	summary := strings.Index(logs, "records /dev/full: ")
	if first < 0 || !strings.Contains(logs[first:], "no space left on device") {
		t.Errorf("no log line names the file and the error:\n%s", logs)
	}
	// The failure is said when it happens, not only in the closing summary.
	if summary < 0 || first > summary {
		t.Errorf("the write error is said only in the summary:\n%s", logs)
	}
	if !strings.Contains(logs, "0 record(s) written") || !strings.Contains(logs, "1 lost to a write error") {
		t.Errorf("the summary does not count the lost record:\n%s", logs)
	}
}
