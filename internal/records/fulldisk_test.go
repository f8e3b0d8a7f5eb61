package records

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/atomicfile"
)

// TestCreateFullDiskRemovesTheFile: a records file whose write fails (ENOSPC
// after 5,000 bytes, as a full disk) is removed at Close, not left partial,
// and Close's error says so.
func TestCreateFullDiskRemovesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	undo := atomicfile.InjectFailure(path, 5000, syscall.ENOSPC)
	defer undo()
	w, err := Create(path, Options{BatchBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		w.Submit(&item{randomRecord(rng, i)})
	}
	err = w.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close: %v, want ENOSPC", err)
	}
	if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("the partial file is still there (%v); Close said %v", serr, err)
	}
}
