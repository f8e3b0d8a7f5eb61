//go:build linux

package calibrate

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// cpuTimes are /proc/stat's aggregate CPU counters (jiffies).
type cpuTimes struct{ idle, total uint64 }

func readCPU() (cpuTimes, error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[0] != "cpu" {
			continue
		}
		var t cpuTimes
		for i, s := range fields[1:] {
			if i >= 8 { // guest time is already in user
				break
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return cpuTimes{}, fmt.Errorf("/proc/stat: %q: %w", s, err)
			}
			t.total += v
			if i == 3 || i == 4 { // idle, iowait
				t.idle += v
			}
		}
		return t, nil
	}
	return cpuTimes{}, fmt.Errorf("/proc/stat: no cpu line")
}

// idleSince is the idle share of the CPUs between two readings.
func (t cpuTimes) idleSince(before cpuTimes) *float64 {
	if t.total <= before.total {
		return nil
	}
	v := float64(t.idle-before.idle) / float64(t.total-before.total)
	return &v
}
