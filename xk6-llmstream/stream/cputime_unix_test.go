//go:build unix

package stream

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) this process has used, so
// that benchmarks can report a rate per CPU second, which a busy shared
// machine disturbs much less than a rate per wall-clock second.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
