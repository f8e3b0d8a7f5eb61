//go:build !linux

package headroom

import "errors"

// ReadCPU is an error off Linux: the machine's idle share is then unknown.
func ReadCPU() (CPUTimes, error) {
	return CPUTimes{}, errors.New("CPU headroom is measured on Linux only")
}
