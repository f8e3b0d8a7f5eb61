//go:build linux

package headroom

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

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
			t.Total += v
			if i == 3 || i == 4 { // idle, iowait
				t.Idle += v
			}
		}
		return t, nil
	}
	return CPUTimes{}, fmt.Errorf("/proc/stat: no cpu line")
}
