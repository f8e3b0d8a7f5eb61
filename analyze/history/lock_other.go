//go:build !unix

package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockWait is how long lock waits for another writer's lock file.
const lockWait = 2 * time.Minute

// lock takes an exclusive lock on f where flock is not available: a lock
// file beside it (FILE.lock), created exclusively; others wait until it is
// removed.
func lock(f *os.File) (unlock func() error, err error) {
	name := f.Name() + ".lock"
	deadline := time.Now().Add(lockWait)
	for {
		lf, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			if cerr := lf.Close(); cerr != nil {
				return nil, cerr
			}
			return func() error { return os.Remove(name) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held for more than %s: remove it if no job is appending", name, lockWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
