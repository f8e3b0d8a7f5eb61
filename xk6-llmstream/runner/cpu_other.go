//go:build !linux

package runner

import "errors"

// CPUTimes are the machine's CPU counters: measured on Linux only.
type CPUTimes struct{}

// ReadCPU is an error off Linux.
func ReadCPU() (CPUTimes, error) {
	return CPUTimes{}, errors.New("CPU headroom is measured on Linux only")
}

// IdleSince is nil off Linux.
func (CPUTimes) IdleSince(CPUTimes) *float64 { return nil }
