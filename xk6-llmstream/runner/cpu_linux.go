//go:build linux

package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// CPUTimes are /proc/stat's aggregate CPU counters (jiffies): how much of the
// machine's CPU time was idle, whoever used the rest.
type CPUTimes struct{ idle, total uint64 }

// ReadCPU reads the machine's CPU counters (Linux; an error elsewhere).
func ReadCPU() (CPUTimes, error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return CPUTimes{}, err
	}
	defer f.Close()
	return parseProcStat(f)
}

// parseProcStat reads the aggregate "cpu" line of /proc/stat.
func parseProcStat(r io.Reader) (CPUTimes, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[0] != "cpu" {
			continue
		}
		var t CPUTimes
		for i, s := range fields[1:] {
			if i >= 8 { // guest time is already in user
				break
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return CPUTimes{}, fmt.Errorf("/proc/stat: %q: %w", s, err)
			}
			t.total += v
			if i == 3 || i == 4 { // idle, iowait
				t.idle += v
			}
		}
		return t, nil
	}
	return CPUTimes{}, fmt.Errorf("/proc/stat: no cpu line")
}

// IdleSince is the idle share of the machine's CPUs between two readings;
// nil when no time passed between them.
func (t CPUTimes) IdleSince(before CPUTimes) *float64 {
	if t.total <= before.total {
		return nil
	}
	v := float64(t.idle-before.idle) / float64(t.total-before.total)
	return &v
}
