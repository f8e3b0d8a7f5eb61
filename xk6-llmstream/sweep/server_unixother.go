//go:build unix && !linux

package sweep

import "syscall"

// dieWithSweep does nothing where the system has no parent-death signal.
func dieWithSweep(*syscall.SysProcAttr) {}
