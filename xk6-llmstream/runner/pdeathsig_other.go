//go:build unix && !linux

package runner

import "syscall"

// dieWithParent does nothing: this system has no parent-death signal. A k6
// that outlives a killed runner finds its helper gone and fails every request
// as kind "helper"; stop it with the process group (kill -- -PGID).
func dieWithParent(*syscall.SysProcAttr) {}
