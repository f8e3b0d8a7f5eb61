package runner

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// startNiced starts cmd, then lowers the priority of every thread of it. On
// Linux each thread has its own nice value and a new thread inherits its
// creator's, so once every thread is lowered, all later ones are too; the
// sweep repeats until it finds none left to lower (k6's runtime starts its
// first threads while the sweep runs).
func startNiced(cmd *exec.Cmd, nice int) (<-chan error, string, error) {
	waited, err := start(cmd)
	if err != nil {
		return nil, "", err
	}
	note := ""
	if nice > 0 {
		note = lowerPriority(cmd.Process.Pid, nice)
	}
	return waited, note, nil
}

// maxSweeps bounds the sweeps over a process's threads.
const maxSweeps = 50

// lowerPriority sets every thread of process pid to this process's nice
// value plus n, and says why it could not, if it could not.
func lowerPriority(pid, n int) string {
	own, err := niceOfThread(os.Getpid())
	if err != nil {
		return "reading the runner's priority: " + err.Error()
	}
	target := min(own+n, MaxK6Nice)
	for range maxSweeps {
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			return "lowering k6's priority: " + err.Error()
		}
		changed := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if cur, err := niceOfThread(tid); err != nil || cur == target {
				continue // gone, or done
			}
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, target); err != nil && !errors.Is(err, syscall.ESRCH) {
				return "lowering k6's priority: " + err.Error()
			}
			changed = true
		}
		if !changed {
			return ""
		}
	}
	return "lowering k6's priority: its threads kept changing"
}

// niceOfThread is the nice value of thread (or process) id.
func niceOfThread(id int) (int, error) {
	// The raw getpriority system call returns 20 − nice (never negative).
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, id)
	return 20 - raw, err
}
