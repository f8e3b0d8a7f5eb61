package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Two opens of one file are two holders: the second TryLock is refused while
// the first holds the lock, and succeeds once it is released.
func TestTryLockRefusesASecondHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	a, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	unlock, err := TryLock(a)
	if err != nil {
		t.Fatalf("first TryLock: %v", err)
	}
	if _, err := TryLock(b); !errors.Is(err, ErrLocked) {
		t.Fatalf("second TryLock while held: %v, want ErrLocked", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	unlock, err = TryLock(b)
	if err != nil {
		t.Fatalf("TryLock after release: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}
