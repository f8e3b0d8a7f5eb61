package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two helpers given one --records file: the second is refused at start with
// an error naming the file, and the first one's file stays whole.
func TestHelperCommandRefusesARecordsFileInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.jsonl")
	_, _, stop := startHelperCmd(t, "--addr", "127.0.0.1:0", "--records", path)
	err := serveHelper(context.Background(), []string{"--addr", "127.0.0.1:0", "--records", path}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another") {
		t.Fatalf("second helper on %s: %v; want a refusal naming the file", path, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(raw)), "\n"); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], `{"format":"llmstream-records"`) || !strings.HasPrefix(lines[1], `{"end":true`) {
		t.Fatalf("the first helper's file is not a header and a trailer:\n%s", raw)
	}
}

// helper --records on a file that is not a records file leaves it alone and
// names the file and the flag; with --records-overwrite it is replaced.
func TestHelperCommandKeepsAFileThatIsNotRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "script.js")
	if err := os.WriteFile(path, []byte("export default function () {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := serveHelper(context.Background(), []string{"--addr", "127.0.0.1:0", "--records", path}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--records-overwrite") {
		t.Fatalf("helper --records %s: %v; want a refusal naming the file and --records-overwrite", path, err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != "export default function () {}\n" {
		t.Fatalf("the file was changed: %q", raw)
	}
	_, _, stop := startHelperCmd(t, "--addr", "127.0.0.1:0", "--records", path, "--records-overwrite")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(path); !strings.HasPrefix(string(raw), `{"format":"llmstream-records"`) {
		t.Fatalf("with --records-overwrite the file is not a records file: %q", raw)
	}
}

// A records file that cannot be written (/dev/full) is logged at the first
// failed write, naming the file, and the helper exits with the error.
func TestHelperCommandRecordsWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	_, stderr, stop := startHelperCmd(t, "--addr", "127.0.0.1:0", "--records", "/dev/full")
	err := stop()
	if err == nil || !strings.Contains(err.Error(), "/dev/full") {
		t.Fatalf("helper: %v; want the write error naming /dev/full", err)
	}
	logs := stderr.String()
	first := strings.Index(logs, "records write failed")
	if first < 0 || !strings.Contains(logs[first:], "file=/dev/full") || !strings.Contains(logs[first:], "no space left on device") {
		t.Fatalf("no log line names the file and the error:\n%s", logs)
	}
}
