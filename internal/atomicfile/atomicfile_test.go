package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// entries lists a folder's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

// TestWriteLeavesNothingOnFailure: a write that fails midway (an injected
// ENOSPC, or the producer's own error) leaves no file and no temporary file,
// and an earlier file at the path untouched; a success replaces it whole.
func TestWriteLeavesNothingOnFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.png")
	undo := InjectFailure(path, 1000, syscall.ENOSPC)
	err := Write(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(make([]byte, 200<<10))
		return err
	})
	undo()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err %v, want ENOSPC", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("after a failed write the folder holds %v", got)
	}
	if err := WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(path, 0o644, func(w io.Writer) error { w.Write([]byte("partial")); return boom }); err != boom {
		t.Fatalf("err %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" || len(entries(t, dir)) != 1 {
		t.Fatalf("after a failed rewrite: %q, folder %v", b, entries(t, dir))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestRenameReplacesASymlink: the output replaces a link at its path; the
// file the link pointed to is not written.
func TestRenameReplacesASymlink(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "f")
	if err := os.Symlink(victim, link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink != 0 {
		t.Error("the link is still there")
	}
}

// TestBatchAllOrNothing: a batch whose third file fails leaves none of its
// files; one that succeeds puts them all in place.
func TestBatchAllOrNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{"a", "b", "c"}
	undo := InjectFailure(filepath.Join(dir, "c"), 3, syscall.ENOSPC)
	var b Batch
	var err error
	for _, n := range names {
		if err = b.Write(filepath.Join(dir, n), 0o644, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Repeat(n, 100))
			return err
		}); err != nil {
			break
		}
	}
	if err == nil {
		err = b.Commit()
	}
	b.Abort()
	undo()
	if !errors.Is(err, syscall.ENOSPC) || len(entries(t, dir)) != 0 {
		t.Fatalf("err %v, folder %v; want ENOSPC and nothing", err, entries(t, dir))
	}
	b = Batch{}
	for _, n := range names {
		if err := b.Write(filepath.Join(dir, n), 0o644, func(w io.Writer) error { _, err := io.WriteString(w, n); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); strings.Join(got, ",") != "a,b,c" {
		t.Errorf("folder %v", got)
	}
}
