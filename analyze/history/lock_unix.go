//go:build unix

package history

import (
	"os"
	"syscall"
)

// lock takes an exclusive flock on f, waiting for other holders: every
// appender locks the file itself, so processes and goroutines that open it
// separately exclude each other.
func lock(f *os.File) (unlock func() error, err error) {
	fd := int(f.Fd())
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return func() error { return syscall.Flock(fd, syscall.LOCK_UN) }, nil
}
