package runner

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"unsafe"
)

// startNiced starts cmd, then lowers the priority of every thread of it: its
// nice value, and with idle its scheduling policy to SCHED_IDLE. On Linux each thread
// has its own and a new thread inherits its creator's, so once every thread
// is lowered, all later ones are too; the sweep repeats until it finds none
// left to lower (k6's runtime starts its first threads while the sweep runs).
//
// SCHED_IDLE is what keeps k6 off the helper's timestamps: the kernel lets
// any other thread that wakes up preempt a SCHED_IDLE thread at once, so a
// helper reader woken by an event never waits for k6's JavaScript, where a
// nice value alone only shares the CPU by weight (the delivery-lag benchmark:
// k6's ITL error p99 excess over a bare client's fell from 2.8× to 1.3–1.6×
// at 50 streams on 2 CPUs).
func startNiced(cmd *exec.Cmd, nice int, idle bool) (<-chan error, string, error) {
	waited, err := start(cmd)
	if err != nil {
		return nil, "", err
	}
	note := ""
	if nice > 0 || idle {
		note = lowerPriority(cmd.Process.Pid, nice, idle)
	}
	return waited, note, nil
}

// maxSweeps bounds the sweeps over a process's threads.
const maxSweeps = 50

// lowerPriority sets every thread of process pid to this process's nice
// value plus n (and with idle under SCHED_IDLE), and says why it could not,
// if it could not.
func lowerPriority(pid, n int, idle bool) string {
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
			cur, err := niceOfThread(tid)
			if err != nil {
				continue // gone
			}
			if cur != target {
				if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, target); err != nil && !errors.Is(err, syscall.ESRCH) {
					return "lowering k6's priority: " + err.Error()
				}
				changed = true
			}
			if isIdle, err := isIdlePolicy(tid); idle && err == nil && !isIdle {
				if err := setIdlePolicy(tid); err != nil && !errors.Is(err, syscall.ESRCH) {
					return "setting k6's scheduling policy to SCHED_IDLE: " + err.Error()
				}
				changed = true
			}
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

// schedIdle is Linux's SCHED_IDLE scheduling policy.
const schedIdle = 5

// isIdlePolicy reports whether thread tid runs under SCHED_IDLE.
func isIdlePolicy(tid int) (bool, error) {
	p, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, uintptr(tid), 0, 0)
	if errno != 0 {
		return false, errno
	}
	return p == schedIdle, nil
}

// setIdlePolicy puts thread tid under SCHED_IDLE (its static priority must
// be 0); no privilege is needed to lower one's own threads.
func setIdlePolicy(tid int) error {
	param := struct{ priority int32 }{0}
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle, uintptr(unsafe.Pointer(&param)))
	if errno != 0 {
		return errno
	}
	return nil
}
