package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/calibrate"
)

// walk lists every file and folder under dir.
func walk(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if p != dir {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestInitFullDiskLeavesNothing: a write of init that fails (ENOSPC
// injected into lib/replay.js, after 100 bytes) fails init and leaves none of
// its files — no 0-byte or partial lib/.
func TestInitFullDiskLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	undo := atomicfile.InjectFailure(filepath.Join(dir, "lib", "replay.js"), 100, syscall.ENOSPC)
	defer undo()
	var out, errb bytes.Buffer
	err := runInit([]string{dir}, nil, &out, &errb)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("init: %v, want ENOSPC", err)
	}
	for _, p := range walk(t, dir) {
		if fi, _ := os.Stat(p); !fi.IsDir() {
			t.Errorf("init left %s behind", p)
		}
	}
}

// TestCalibrateKeepFullDiskLeavesNoProfile: calibrate's mock profile in the
// --keep folder is not left 0-byte or partial when its write fails; the run
// stops before k6.
func TestCalibrateKeepFullDiskLeavesNoProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	undo := atomicfile.InjectFailure(filepath.Join(dir, "mock-profile.json"), 10, syscall.ENOSPC)
	defer undo()
	var out, errb bytes.Buffer
	_, err := calibrate.Run(context.Background(), calibrate.Config{Dir: dir, Stdout: &out, Stderr: &errb,
		Shape: calibrate.MockShape{TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond, OutputTokens: 8}})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("calibrate: %v, want ENOSPC", err)
	}
	if got := walk(t, dir); len(got) != 0 {
		t.Errorf("calibrate left %v", got)
	}
}

// TestInitForceRefusesLinks: init --force refuses a symbolic link where it
// would write — a file of the module, or the lib/ folder — naming it, and
// writes nothing, so a file outside the folder is never written.
func TestInitForceRefusesLinks(t *testing.T) {
	t.Parallel()
	for _, link := range []string{"llmstream.js", "lib", "lib/replay.js"} {
		dir, outside := t.TempDir(), t.TempDir()
		victim := filepath.Join(outside, "victim")
		if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		target := victim
		if link == "lib" {
			target = outside
		}
		lp := filepath.Join(dir, filepath.FromSlash(link))
		os.MkdirAll(filepath.Dir(lp), 0o755)
		if err := os.Symlink(target, lp); err != nil {
			t.Skip(err)
		}
		var out, errb bytes.Buffer
		err := runInit([]string{"--force", dir}, nil, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), lp+" is a symbolic link") {
			t.Errorf("%s: %v; want a refusal naming %s", link, err, lp)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep" {
			t.Errorf("%s: the file outside was written: %.40q", link, b)
		}
		if des, _ := os.ReadDir(outside); len(des) != 1 {
			t.Errorf("%s: %d entries outside, want the victim alone", link, len(des))
		}
		if _, err := os.Stat(filepath.Join(dir, "script.js")); err == nil {
			t.Errorf("%s: init wrote files before refusing", link)
		}
	}
}
