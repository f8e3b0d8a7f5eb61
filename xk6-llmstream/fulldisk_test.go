package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
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
