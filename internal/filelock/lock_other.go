//go:build !unix

package filelock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockWait is how long Lock waits for another holder's lock file.
const lockWait = 2 * time.Minute

// Lock takes an exclusive lock on f where flock is not available: a lock
// file beside it (NAME.lock), created exclusively; others wait until it is
// removed.
func Lock(f *os.File) (unlock func() error, err error) {
	deadline := time.Now().Add(lockWait)
	for {
		unlock, err := TryLock(f)
		if !errors.Is(err, ErrLocked) {
			return unlock, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s.lock is held for more than %s: remove it if no process is writing %s", f.Name(), lockWait, f.Name())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TryLock is Lock without the wait: ErrLocked (naming the lock file) when
// another holder has it.
func TryLock(f *os.File) (unlock func() error, err error) {
	name := f.Name() + ".lock"
	lf, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%w (%s exists: remove it if no process is writing %s)", ErrLocked, name, f.Name())
	}
	if err != nil {
		return nil, err
	}
	if err := lf.Close(); err != nil {
		return nil, err
	}
	return func() error { return os.Remove(name) }, nil
}
