//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes an exclusive lock on f, waiting for other holders: every
// holder locks the file itself, so processes and goroutines that open it
// separately exclude each other. unlock releases it (closing f does too).
func Lock(f *os.File) (unlock func() error, err error) {
	return flock(f, syscall.LOCK_EX)
}

// TryLock is Lock without the wait: ErrLocked when another holder has it.
func TryLock(f *os.File) (unlock func() error, err error) {
	unlock, err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, ErrLocked
	}
	return unlock, err
}

func flock(f *os.File, how int) (unlock func() error, err error) {
	fd := int(f.Fd())
	for {
		err = syscall.Flock(fd, how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return func() error { return syscall.Flock(fd, syscall.LOCK_UN) }, nil
}
