//go:build linux || freebsd || netbsd || openbsd || dragonfly

package mockllm

import (
	"syscall"
	"time"
)

// nap sleeps d with the kernel's high-resolution timer. Unlike time.Sleep it
// is not rounded to the runtime poller's millisecond.
func nap(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil) // EINTR only shortens the nap: the pacer loops
}
