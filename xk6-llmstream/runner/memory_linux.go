package runner

import "syscall"

// machineMemory is the machine's physical memory in bytes.
func machineMemory() (uint64, bool) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0, false
	}
	return uint64(si.Totalram) * uint64(si.Unit), true
}
