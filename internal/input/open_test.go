package input

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenPlainGzipStdinAndDirectory reads the same lines plain, gzipped
// under a name without .gz, and from stdin, and refuses a directory by name.
func TestOpenPlainGzipStdinAndDirectory(t *testing.T) {
	const text = "{\"a\":1}\n{\"a\":2}\n"
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.jsonl")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(text))
	_ = zw.Close()
	zipped := filepath.Join(dir, "no-suffix")
	if err := os.WriteFile(zipped, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		stdin io.Reader
	}{{plain, nil}, {zipped, nil}, {"-", strings.NewReader(text)}, {"-", bytes.NewReader(gz.Bytes())}} {
		rc, err := Open(c.path, c.stdin)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		got, err := io.ReadAll(rc)
		if err != nil || string(got) != text {
			t.Errorf("%s: read %q, %v; want %q", c.path, got, err, text)
		}
		if err := rc.Close(); err != nil {
			t.Errorf("%s: close: %v", c.path, err)
		}
	}
	if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), dir+" is a directory") {
		t.Errorf("Open(directory) = %v, want an error naming it as a directory", err)
	}
	bad := filepath.Join(dir, "bad.gz")
	if err := os.WriteFile(bad, []byte{0x1f, 0x8b, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad, nil); err == nil || !strings.Contains(err.Error(), bad+": bad gzip header") {
		t.Errorf("Open(bad gzip) = %v, want an error naming the file and its gzip header", err)
	}
}
