//go:build unix

package sweep

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// ownGroup puts the server in a process group of its own (a Ctrl-C in the
// terminal reaches the sweep only, which stops the server after k6; and the
// whole group, an engine's worker processes too, is killed at the end), and
// where the system has it kills the server's first process with the sweep.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithSweep(cmd.SysProcAttr)
}

// serveSupported: the server sweep needs process groups.
const serveSupported = true

// signalGroup sends SIGTERM (kill: SIGKILL) to the process group.
func signalGroup(pgid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pgid, sig)
}

// groupAlive is whether a process of the group is still running: on Linux
// one in /proc with that group that is not a zombie (an orphan whose
// reaper has not reaped it yet is gone for our purpose), elsewhere whether
// the group can still be signalled.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pg, ok := procStat(pid); ok && pg == pgid && state != "Z" {
			return true
		}
	}
	return false
}

// procStat reads a process's state and process group from /proc/PID/stat.
func procStat(pid int) (state string, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return "", 0, false
	}
	pg, err := strconv.Atoi(f[2])
	return f[0], pg, err == nil
}
