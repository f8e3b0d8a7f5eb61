package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update rewrites the golden files of this package's tests:
//
//	go test ./analyze -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	// The goldens were recorded when these tests ran one folder nearer the
	// root (analyze/, before the cmd/ layout): the fixture path an output
	// echoes is written as it was then, so the files stay byte-identical.
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update if the change is intended)\n--- got:\n%s", path, got)
	}
}

// run runs analyze with arguments and returns its exit code, stdout and stderr.
func run(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := realMain(args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const (
	fixV2     = "../testdata/k6/k6v2_llm_synthetic.json.gz"
	fixV1     = "../testdata/k6/k6v1_llm_synthetic.json.gz"
	fixKilled = "../testdata/k6/k6v2_killed.json.gz"
)
