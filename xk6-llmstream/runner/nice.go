package runner

import (
	"fmt"
	"os/exec"
)

// DefaultK6Nice is how much lower than the runner's `xk6-llmstream run` puts
// k6's CPU priority (a nice increment). The helper stamps every event as it
// comes off the socket; when k6 and the helper share too few cores, k6's
// bursts of JavaScript and output would otherwise delay those reads, and the
// error would hide in the latencies measured. With k6 below the helper, the
// helper reads on time and a CPU-starved k6 shows as what it is: fewer
// requests sent (dropped iterations, a lower achieved rate) and the
// load-generator warning.
const DefaultK6Nice = 10

// MaxK6Nice is the largest nice increment (19 is the lowest priority).
const MaxK6Nice = 19

// CheckK6Nice checks a nice increment given by the user.
func CheckK6Nice(n int) error {
	if n < 0 || n > MaxK6Nice {
		return fmt.Errorf("k6 nice %d: want 0 (k6 at the helper's priority) to %d (lowest)", n, MaxK6Nice)
	}
	return nil
}

// start starts cmd and returns the channel its Wait's result arrives on.
func start(cmd *exec.Cmd) (<-chan error, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	return waited, nil
}

// StartK6 starts cmd with its CPU priority nice steps below this process's
// (0: the same), under SCHED_IDLE when idle is set (Linux), and returns the
// channel its Wait's result arrives on. note, when not empty, says why the
// priority could not be lowered (k6 then runs at the runner's).
func StartK6(cmd *exec.Cmd, nice int, idle bool) (waited <-chan error, note string, err error) {
	return startNiced(cmd, nice, idle)
}
