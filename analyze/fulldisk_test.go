package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
)

// TestPlotAndReportFullDiskLeaveNothing: a failed write (ENOSPC injected
// after 1,000 bytes) of `analyze plot`'s PNG and SVG and of `analyze
// report`'s index.html exits 1 and leaves no file, partial or 0-byte, and
// no report folder.
func TestPlotAndReportFullDiskLeaveNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"ttft.png", "ttft.svg"} {
		out := filepath.Join(dir, name)
		undo := atomicfile.InjectFailure(out, 1000, syscall.ENOSPC)
		code, _, stderr := run(t, nil, "plot", fixV2, "--metric", "llm_ttft", "-o", out)
		undo()
		if code != 1 || !strings.Contains(stderr, "no space left on device") {
			t.Errorf("plot -o %s: exit %d, %q", name, code, stderr)
		}
	}
	rep := filepath.Join(dir, "report")
	undo := atomicfile.InjectFailure(filepath.Join(rep, "index.html"), 1000, syscall.ENOSPC)
	code, _, stderr := run(t, nil, "report", fixV2, "--metric", "llm_ttft", "-o", rep)
	undo()
	if code != 1 || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("report: exit %d, %q", code, stderr)
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		var names []string
		for _, d := range des {
			names = append(names, d.Name())
		}
		t.Errorf("left behind: %v", names)
	}
}
