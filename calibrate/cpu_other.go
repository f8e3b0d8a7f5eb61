//go:build !linux

package calibrate

import "errors"

type cpuTimes struct{}

func readCPU() (cpuTimes, error) {
	return cpuTimes{}, errors.New("CPU headroom is measured on Linux only")
}

func (cpuTimes) idleSince(cpuTimes) *float64 { return nil }
