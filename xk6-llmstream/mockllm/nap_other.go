//go:build !(linux || freebsd || netbsd || openbsd || dragonfly)

package mockllm

import "time"

// nap sleeps d. Where nanosleep is not reachable from the syscall package,
// time.Sleep is used, and pacing may be up to about 1 ms late.
func nap(d time.Duration) { time.Sleep(d) }
